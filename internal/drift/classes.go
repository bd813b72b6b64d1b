package drift

// Drift classes. The strings are interoperable output: they appear in JSONL,
// SARIF rule ids (upper-cased behind "WRD-DRIFT-") and the conformance
// vectors, so they must never be reworded.
const (
	// ClassServerIdentity: the launch command/args (or URL) changed.
	ClassServerIdentity = "server-identity"
	// ClassToolAdded: a tool name is new since the baseline.
	ClassToolAdded = "tool-added"
	// ClassToolRemoved: a baseline tool name is gone.
	ClassToolRemoved = "tool-removed"
	// ClassToolAnnotationsModified: a v4 annotations_hash changed.
	ClassToolAnnotationsModified = "tool-annotations-modified"
	// ClassCapabilityAdded: a tool gained a derived capability flag.
	ClassCapabilityAdded = "capability-added"
	// ClassCapabilityRemoved: a tool lost a derived capability flag.
	ClassCapabilityRemoved = "capability-removed"
	// ClassDescriptionModified: only a tool's description changed.
	ClassDescriptionModified = "description-modified"
	// ClassInspectionPolicyModified: a tool's §11 inspection block differs.
	ClassInspectionPolicyModified = "inspection-policy-modified"

	// ClassSchemaModified is the coarse input-schema fallback (no skeleton),
	// and also the class of an opaque-leaf ($ref/_truncated) change.
	ClassSchemaModified = "schema-modified"
	// ClassSchemaCosmeticModified: the input schema hash changed but its
	// skeleton did not.
	ClassSchemaCosmeticModified = "schema-cosmetic-modified"
	// ClassSchemaRequiredRemoved: a required property disappeared.
	ClassSchemaRequiredRemoved = "schema-required-removed"
	// ClassSchemaPropertyRemoved: an optional property disappeared.
	ClassSchemaPropertyRemoved = "schema-property-removed"
	// ClassSchemaRequiredUnconstrainedAdded: a new (or newly) required
	// property with no enum, pattern or maxLength.
	ClassSchemaRequiredUnconstrainedAdded = "schema-required-unconstrained-added"
	// ClassSchemaRequiredAdded: a new (or newly) required constrained property.
	ClassSchemaRequiredAdded = "schema-required-added"
	// ClassSchemaUnconstrainedAdded: a new optional unconstrained property.
	ClassSchemaUnconstrainedAdded = "schema-unconstrained-added"
	// ClassSchemaPropertyAdded: a new optional constrained property.
	ClassSchemaPropertyAdded = "schema-property-added"
	// ClassSchemaTypeBroadened: a property's type set widened.
	ClassSchemaTypeBroadened = "schema-type-broadened"
	// ClassSchemaTypeNarrowed: a property's type set narrowed.
	ClassSchemaTypeNarrowed = "schema-type-narrowed"
	// ClassSchemaTypeChanged: a property's type set changed otherwise.
	ClassSchemaTypeChanged = "schema-type-changed"
	// ClassSchemaEnumWidened: an enum gained members (or changed shape).
	ClassSchemaEnumWidened = "schema-enum-widened"
	// ClassSchemaEnumNarrowed: an enum lost members.
	ClassSchemaEnumNarrowed = "schema-enum-narrowed"
	// ClassSchemaEnumRemoved: an enum constraint disappeared.
	ClassSchemaEnumRemoved = "schema-enum-removed"
	// ClassSchemaEnumAdded: an enum constraint appeared.
	ClassSchemaEnumAdded = "schema-enum-added"
	// ClassSchemaConstraintRelaxed: a bound, pattern, format or required
	// flag was loosened.
	ClassSchemaConstraintRelaxed = "schema-constraint-relaxed"
	// ClassSchemaConstraintTightened: a bound, pattern, format or
	// additionalProperties was tightened.
	ClassSchemaConstraintTightened = "schema-constraint-tightened"
	// ClassSchemaAdditionalPropsOpened: additionalProperties went from false
	// to anything else.
	ClassSchemaAdditionalPropsOpened = "schema-additional-props-opened"

	// ClassSchemaOutAdded: a tool gained an outputSchema (v4).
	ClassSchemaOutAdded = "schema-out-added"
	// ClassSchemaOutRemoved: a tool lost its outputSchema (v4).
	ClassSchemaOutRemoved = "schema-out-removed"
	// ClassSchemaOutModified: an outputSchema changed and a skeleton is
	// missing, or an opaque leaf in it changed.
	ClassSchemaOutModified = "schema-out-modified"
	// ClassSchemaOutCosmeticModified: the outputSchema hash changed but its
	// skeleton did not.
	ClassSchemaOutCosmeticModified = "schema-out-cosmetic-modified"

	// ClassResourceAdded: a resource uri is new.
	ClassResourceAdded = "resource-added"
	// ClassResourceRemoved: a baseline resource uri is gone.
	ClassResourceRemoved = "resource-removed"
	// ClassResourceModified: a resource's entry_digest changed.
	ClassResourceModified = "resource-modified"
	// ClassPromptAdded: a prompt name is new.
	ClassPromptAdded = "prompt-added"
	// ClassPromptRemoved: a baseline prompt name is gone.
	ClassPromptRemoved = "prompt-removed"
	// ClassPromptModified: a prompt's entry_digest changed.
	ClassPromptModified = "prompt-modified"

	// ClassUnapprovedChange: the approved baseline's approved_digest no
	// longer matches the current surface (SPEC §10).
	ClassUnapprovedChange = "unapproved-change"
	// ClassSchemaVersionMigrated is the additive advisory for a baseline
	// written at an older schema_version (SPEC §14.3).
	ClassSchemaVersionMigrated = "schema-version-migrated"
	// ClassDigestMismatchUnexplained is SPEC §8's catch-all: the overall
	// digests differ but no other item explains why. The reference
	// implementation does not emit it yet.
	ClassDigestMismatchUnexplained = "digest-mismatch-unexplained"
)

// Targets that are not entry targets ("tools/<name>", "resources/<uri>",
// "prompts/<name>").
const (
	// TargetLaunch is the target of server-identity drift.
	TargetLaunch = "launch/command"
	// TargetApproval is the target of the approval and migration items.
	TargetApproval = "pin/approved_digest"
	// TargetOverallDigest is the target of digest-mismatch-unexplained.
	TargetOverallDigest = "lock/overall_digest"
)

// Target prefixes for entry items.
const (
	// ToolPrefix prefixes a tool name.
	ToolPrefix = "tools/"
	// ResourcePrefix prefixes a resource uri.
	ResourcePrefix = "resources/"
	// PromptPrefix prefixes a prompt name.
	PromptPrefix = "prompts/"
)
