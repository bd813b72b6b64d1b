package drift

import (
	"slices"
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/pyfmt"
	"github.com/wardenlock/warden/internal/skeleton"
)

// metadataLevel is the schema_version that first committed tool annotations
// and output schemas. A baseline below it cannot say anything about them,
// which is what the legacy migration advisory tells the operator.
const metadataLevel = 4

// NullHash is hash(JSON null): the v4 commitment of an absent annotations
// object or output schema.
const NullHash = "sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"

// Compare reports the drift from baseline (a stored lock) to current (the
// lock built from a fresh capture), in the reference's order: sorted by
// (target, drift_class) in code-point order, ties in emission order.
//
// It never re-verifies the baseline's internal digests: a stored entry or
// overall digest that fails to recompute simply shows up as drift (at worst
// as digest-mismatch-unexplained). An empty result means no drift. A nil
// lock cannot be compared, so Compare fails closed with a single
// digest-mismatch-unexplained item rather than report a clean verdict.
func Compare(baseline, current *lock.Lock) []Item {
	if baseline == nil || current == nil {
		return []Item{unexplained()}
	}
	if baseline.OverallDigest == current.OverallDigest {
		// Equal overall digests prove the surfaces equal (SPEC §8.2); the
		// reference skips every other check, approval included.
		return []Item{}
	}
	var items []Item
	if baseline.Server.CommandDigest != current.Server.CommandDigest {
		items = append(items, item(ClassServerIdentity, Critical, TargetLaunch, nil,
			"Server launch command/args changed since pin (you are pinning a different launch)"))
	}
	items = toolItems(items, baseline.Tools, current.Tools)
	items = resourceItems(items, baseline.Resources, current.Resources)
	items = promptItems(items, baseline.Prompts, current.Prompts)
	items = approvalItems(items, baseline, current)
	if len(items) == 0 {
		// SPEC §8: the digests differ, so the verdict must not be clean
		// even though no entry explains it (duplicate names collapsed by
		// indexing, a tampered stored skeleton or entry digest, an
		// approved lock without an approved_digest).
		items = append(items, unexplained())
	}
	slices.SortStableFunc(items, func(x, y Item) int {
		if c := strings.Compare(x.Target, y.Target); c != 0 {
			return c
		}
		return strings.Compare(x.Class, y.Class)
	})
	return items
}

// UnexplainedMessage is warden's wording for digest-mismatch-unexplained; the
// reference has no such item, so there is no wording to match.
const UnexplainedMessage = "overall_digest differs from the baseline but no entry-level change explains it " +
	"(duplicate entry names, a tampered stored field, or an approval without approved_digest); review the lock and re-pin"

func unexplained() Item {
	return item(ClassDigestMismatchUnexplained, High, TargetOverallDigest, nil, UnexplainedMessage)
}

func item(class, severity, target string, detail *string, message string) Item {
	return Item{Class: class, Severity: severity, Target: target, Detail: detail, Message: message}
}

// approvalItems applies the migration and approval rules of
// reference-behaviour §4.1/§4.7, in their order. The advisory never replaces
// or downgrades unapproved-change (SPEC §14.3).
func approvalItems(items []Item, b, c *lock.Lock) []Item {
	if b.SchemaVersion < metadataLevel && metadataLevel <= c.SchemaVersion && !b.Pin.Approved {
		items = append(items, item(ClassSchemaVersionMigrated, Low, TargetApproval, nil,
			"Legacy lock does not commit tool annotations/outputSchema; review and re-pin under schema v4"))
	}
	if b.Pin.Approved && b.Pin.ApprovedDigest != nil && *b.Pin.ApprovedDigest != c.OverallDigest {
		items = append(items, item(ClassUnapprovedChange, High, TargetApproval, nil,
			"Surface changed since approval; approved_digest no longer matches the current surface"))
		if c.SchemaVersion > b.SchemaVersion {
			bv, cv := strconv.Itoa(b.SchemaVersion), strconv.Itoa(c.SchemaVersion)
			items = append(items, item(ClassSchemaVersionMigrated, Low, TargetApproval, nil,
				"Lock schema version migrated v"+bv+Arrow+"v"+cv+"; the approved_digest changed because the lock's "+
					"schema-format upgraded (e.g. opaque $ref leaves are now resolved). This advisory does NOT by "+
					"itself excuse or downgrade the accompanying 'unapproved-change' finding: that finding is real "+
					"and the operator must review it and re-pin to re-attest the surface under schema v"+cv+"."))
		}
	}
	return items
}

// keyDiff splits two name→index maps into added, removed and common keys,
// each sorted by code point. Indexing keeps the last entry of a repeated
// name, as the reference's dict comprehension does; the digest check catches
// what that collapses.
func keyDiff(b, c map[string]int) (added, removed, common []string) {
	for k := range c {
		if _, ok := b[k]; ok {
			common = append(common, k)
		} else {
			added = append(added, k)
		}
	}
	for k := range b {
		if _, ok := c[k]; !ok {
			removed = append(removed, k)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	slices.Sort(common)
	return added, removed, common
}

func index[E any](entries []E, key func(E) string) map[string]int {
	m := make(map[string]int, len(entries))
	for i, e := range entries {
		m[key(e)] = i
	}
	return m
}

func toolItems(items []Item, bs, cs []lock.Tool) []Item {
	name := func(t lock.Tool) string { return t.Name }
	bi, ci := index(bs, name), index(cs, name)
	added, removed, common := keyDiff(bi, ci)
	for _, n := range added {
		items = append(items, item(ClassToolAdded, High, ToolPrefix+n, nil, "Tool '"+n+"' added since pin"))
	}
	for _, n := range removed {
		items = append(items, item(ClassToolRemoved, Medium, ToolPrefix+n, nil, "Tool '"+n+"' removed since pin"))
	}
	for _, n := range common {
		items = toolChanges(items, &bs[bi[n]], &cs[ci[n]])
	}
	return items
}

// toolChanges compares one tool present on both sides (reference-behaviour
// §4.2): input schema, v4 metadata, capabilities, inspection, description.
func toolChanges(items []Item, b, c *lock.Tool) []Item {
	n := b.Name
	target := ToolPrefix + n
	schemaChanged := b.InputSchemaHash != c.InputSchemaHash
	if schemaChanged {
		bs, cs := readSkeleton(b.SchemaSkeleton), readSkeleton(c.SchemaSkeleton)
		switch {
		case bs == nil || cs == nil:
			items = append(items, item(ClassSchemaModified, High, target, nil, "Tool '"+n+"' inputSchema changed"))
		default:
			ch := diffSkeletons(bs, cs)
			if len(ch) == 0 {
				items = append(items, item(ClassSchemaCosmeticModified, Low, target, nil,
					"Tool '"+n+"' inputSchema changed cosmetically (no structural change)"))
			}
			for _, x := range ch {
				items = append(items, item(x.class, x.severity, target, detailOf(x.detail),
					"Tool '"+n+"' schema "+x.class+" at '"+x.path+"'"))
			}
		}
	}
	items = metadataItems(items, b, c, target)

	capsAdded, capsRemoved := setDiff(b.Capabilities, c.Capabilities)
	for _, f := range capsAdded {
		items = append(items, item(ClassCapabilityAdded, High, target, nil, "Tool '"+n+"' gained capability '"+f+"'"))
	}
	for _, f := range capsRemoved {
		items = append(items, item(ClassCapabilityRemoved, Medium, target, nil, "Tool '"+n+"' lost capability '"+f+"'"))
	}
	// Python equality on the raw blocks: an absent block is not {}.
	if !pyfmt.Equal(b.Inspection, c.Inspection) {
		items = append(items, item(ClassInspectionPolicyModified, Medium, target, nil,
			"Tool '"+n+"' inspection policy changed (security-relevant relaxation/tightening)"))
	}
	// Only an input-schema or capability change explains a description
	// change away; annotation, output and inspection items do not.
	if b.DescriptionHash != c.DescriptionHash && !schemaChanged && len(capsAdded) == 0 && len(capsRemoved) == 0 {
		items = append(items, item(ClassDescriptionModified, Low, target, nil, "Tool '"+n+"' description changed"))
	}
	return items
}

// metadataItems reports v4 annotation and output-schema changes
// (reference-behaviour §4.4). A baseline without the v4 commitments (a legacy
// lock) has nothing to compare, so no metadata drift is invented for it.
func metadataItems(items []Item, b, c *lock.Tool, target string) []Item {
	if !b.HasV4 {
		return items
	}
	n := b.Name
	if b.AnnotationsHash != c.AnnotationsHash {
		items = append(items, item(ClassToolAnnotationsModified, High, target, nil,
			"Tool '"+n+"' annotations changed (server declarations, not authority)"))
	}
	if b.OutputSchemaHash == c.OutputSchemaHash {
		return items
	}
	switch {
	case b.OutputSchemaHash == NullHash:
		return append(items, item(ClassSchemaOutAdded, High, target, nil, "Tool '"+n+"' outputSchema added"))
	case c.OutputSchemaHash == NullHash:
		return append(items, item(ClassSchemaOutRemoved, High, target, nil, "Tool '"+n+"' outputSchema removed"))
	}
	bs, cs := readSkeleton(b.OutputSchemaSkeleton), readSkeleton(c.OutputSchemaSkeleton)
	if bs == nil || cs == nil {
		return append(items, item(ClassSchemaOutModified, High, target, nil, "Tool '"+n+"' outputSchema changed"))
	}
	ch := diffSkeletons(bs, cs)
	if len(ch) == 0 {
		return append(items, item(ClassSchemaOutCosmeticModified, Low, target, nil,
			"Tool '"+n+"' outputSchema changed cosmetically (no structural change)"))
	}
	for _, x := range ch {
		class := outClass(x.class)
		items = append(items, item(class, x.severity, target, detailOf(x.detail),
			"Tool '"+n+"' outputSchema "+class+" at '"+x.path+"'"))
	}
	return items
}

// outClass renames an input-schema class for the output schema by replacing
// its first "schema-" with "schema-out-".
func outClass(class string) string {
	return strings.Replace(class, "schema-", "schema-out-", 1)
}

// readSkeleton reads a stored skeleton, parsing its compact text back (only
// entries whose schema hash changed get here). A missing (null) skeleton and
// one that cannot be read both give nil, which the callers turn into the
// coarse high-severity schema-modified: a damaged or tampered baseline
// skeleton must not be allowed to describe a change as smaller than it is.
func readSkeleton(raw jsonv.Raw) *skeleton.Skeleton {
	if raw.IsNull() {
		return nil
	}
	v, err := raw.Value()
	if err != nil {
		return nil
	}
	s, err := skeleton.FromValue(v)
	if err != nil || s == nil {
		return nil
	}
	return s
}

func detailOf(s string) *string { return &s }

// setDiff returns the members only in c (added) and only in b (removed),
// each sorted and de-duplicated: capabilities are compared as sets. Real
// lists hold a handful of flags, so the identical case allocates nothing and
// short lists are scanned linearly; only a long (hand-edited or hostile)
// list pays for maps, which keeps the worst case O(n log n).
func setDiff(b, c []string) (added, removed []string) {
	if slices.Equal(b, c) {
		return nil, nil
	}
	if len(b)+len(c) > 32 {
		return mapSetDiff(b, c)
	}
	for _, x := range c {
		if !slices.Contains(b, x) && !slices.Contains(added, x) {
			added = append(added, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(c, x) && !slices.Contains(removed, x) {
			removed = append(removed, x)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

func mapSetDiff(b, c []string) (added, removed []string) {
	bs := make(map[string]bool, len(b))
	for _, x := range b {
		bs[x] = true
	}
	cs := make(map[string]bool, len(c))
	for _, x := range c {
		cs[x] = true
	}
	for x := range cs {
		if !bs[x] {
			added = append(added, x)
		}
	}
	for x := range bs {
		if !cs[x] {
			removed = append(removed, x)
		}
	}
	slices.Sort(added)
	slices.Sort(removed)
	return added, removed
}

func resourceItems(items []Item, bs, cs []lock.Resource) []Item {
	return entryItems(items, bs, cs, entryKind[lock.Resource]{
		key:    func(r lock.Resource) string { return r.URI },
		digest: func(r lock.Resource) string { return r.EntryDigest },
		prefix: ResourcePrefix, noun: "Resource",
		added: ClassResourceAdded, removed: ClassResourceRemoved, modified: ClassResourceModified,
	})
}

func promptItems(items []Item, bs, cs []lock.Prompt) []Item {
	return entryItems(items, bs, cs, entryKind[lock.Prompt]{
		key:    func(p lock.Prompt) string { return p.Name },
		digest: func(p lock.Prompt) string { return p.EntryDigest },
		prefix: PromptPrefix, noun: "Prompt",
		added: ClassPromptAdded, removed: ClassPromptRemoved, modified: ClassPromptModified,
	})
}

// entryKind describes resources or prompts, whose drift is only added
// (medium), removed (low) or modified (low, entry_digest differs).
type entryKind[E any] struct {
	key, digest              func(E) string
	prefix, noun             string
	added, removed, modified string
}

func entryItems[E any](items []Item, bs, cs []E, k entryKind[E]) []Item {
	bi, ci := index(bs, k.key), index(cs, k.key)
	added, removed, common := keyDiff(bi, ci)
	for _, n := range added {
		items = append(items, item(k.added, Medium, k.prefix+n, nil, k.noun+" '"+n+"' added"))
	}
	for _, n := range removed {
		items = append(items, item(k.removed, Low, k.prefix+n, nil, k.noun+" '"+n+"' removed"))
	}
	for _, n := range common {
		if k.digest(bs[bi[n]]) != k.digest(cs[ci[n]]) {
			items = append(items, item(k.modified, Low, k.prefix+n, nil, k.noun+" '"+n+"' modified"))
		}
	}
	return items
}
