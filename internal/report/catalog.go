package report

import (
	"strings"
)

// RuleText describes one rule for people reading a code-scanning alert.
type RuleText struct {
	// Short is one sentence that fits on one line.
	Short string
	// Full explains what the rule detects and why it matters.
	Full string
	// Kind is "drift" or "finding"; Category narrows it (identity, tool,
	// schema, output-schema, capability, secret, supply-chain, approval, …)
	// and becomes a SARIF tag.
	Kind     string
	Category string
	// Known is false when the rule id is not in warden's catalogue (a newer
	// producer's rule); the text is then generic.
	Known bool
}

// Describe returns the catalogue entry for a rule id: a drift rule
// (WRD-DRIFT-…) or an embedded-finding rule (WRD-CAP-…, WRD-SEC-…,
// WRD-SUP-…, WRD-SCHEMA-MALFORMED). Unknown ids get a generic description so
// a report never fails because a lock came from a newer tool.
func Describe(ruleID string) RuleText {
	if class, ok := strings.CutPrefix(ruleID, DriftRulePrefix); ok {
		return describeDrift(strings.ToLower(class))
	}
	return describeFinding(ruleID)
}

// describeDrift covers every drift class of the lock format. It is a switch
// rather than a table so the catalogue is not a package-level variable.
func describeDrift(class string) RuleText {
	d := func(cat, short, full string) RuleText {
		return RuleText{Short: short, Full: full, Kind: "drift", Category: cat, Known: true}
	}
	switch class {
	case "server-identity":
		return d("identity", "The server is launched differently than when it was pinned.",
			"The launch command, its arguments or the server URL no longer match the pinned launch identity. "+
				"Every other comparison then describes a different server than the one that was reviewed, so the whole surface needs a fresh review.")
	case "tool-added":
		return d("tool", "The server now offers a tool that was not pinned.",
			"A tool appeared that was not present when the lock was pinned. An agent connected to this server can call it without anyone having reviewed its name, description or input schema.")
	case "tool-removed":
		return d("tool", "A pinned tool is no longer offered.",
			"A tool recorded in the lock is missing from the server. Removal reduces the surface, but it can break agents that rely on the tool and may signal that a different server build is running.")
	case "capability-added":
		return d("capability", "A tool gained a derived capability.",
			"The capabilities warden derives from a tool's name and top-level input properties (shell execution, file-system read or write, HTTP requests, SQL) include one that was not pinned. The tool can now plausibly do something more powerful than what was approved.")
	case "capability-removed":
		return d("capability", "A tool lost a derived capability.",
			"A capability derived at pin time is no longer derived. That usually means the tool's name or its input properties were renamed, which is worth confirming.")
	case "description-modified":
		return d("tool", "A tool's description changed.",
			"Only the description text of a tool changed. Descriptions are read by the model, so a changed description can carry new instructions (tool poisoning) even when the schema is untouched.")
	case "inspection-policy-modified":
		return d("tool", "A tool's recorded inspection policy differs.",
			"The lock carries an inspection-policy block for this tool that the fresh capture does not reproduce. Inspection policies are security settings; any difference needs a deliberate re-pin.")
	case "schema-modified":
		return d("schema", "A tool's input schema changed in a way that cannot be classified finely.",
			"The input schema changed and either the pinned lock has no structural skeleton to compare against, or a $ref or truncation marker changed. Review the whole schema.")
	case "schema-cosmetic-modified":
		return d("schema", "A tool's input schema changed cosmetically.",
			"The input schema's bytes changed but its security-relevant structure (types, required properties, enums and constraints) did not — for example a reworded property description or a change inside anyOf or $defs that warden does not analyse.")
	case "schema-required-removed":
		return d("schema", "A required input property disappeared.",
			"A property that callers had to supply is gone from the input schema. The tool's contract changed incompatibly.")
	case "schema-property-removed":
		return d("schema", "An optional input property disappeared.",
			"An optional property was removed from the input schema.")
	case "schema-required-unconstrained-added":
		return d("schema", "A new required input property accepts free-form values.",
			"The input schema now requires a property that has no enum, pattern or maximum length — an unconstrained string or object the model must fill in, which is a common channel for exfiltrating data.")
	case "schema-required-added":
		return d("schema", "An input property became required.",
			"A property is new and required, or an optional property became required. It is constrained (enum, pattern, length or a non-string type), so the risk is mostly compatibility.")
	case "schema-unconstrained-added":
		return d("schema", "A new optional input property accepts free-form values.",
			"An optional property without enum, pattern or maximum length was added to the input schema. Free-form inputs widen what the model can be asked to send.")
	case "schema-property-added":
		return d("schema", "A new constrained optional input property was added.",
			"An optional property with an enum, pattern, length limit or a narrow type was added to the input schema.")
	case "schema-type-broadened":
		return d("schema", "An input property accepts more types than before.",
			"The set of JSON types allowed for a property grew, or the type restriction was removed entirely.")
	case "schema-type-narrowed":
		return d("schema", "An input property accepts fewer types than before.",
			"The set of JSON types allowed for a property shrank, or a type restriction was added.")
	case "schema-type-changed":
		return d("schema", "An input property's type changed.",
			"The allowed JSON types of a property changed to a set that neither contains nor is contained in the pinned one.")
	case "schema-enum-widened":
		return d("schema", "An input property's enum changed or admits new values.",
			"The list of allowed values of a property gained members, or changed so that the old list is no longer a superset of the new one.")
	case "schema-enum-narrowed":
		return d("schema", "An input property's enum lost values.",
			"The list of allowed values of a property is now a strict subset of the pinned list.")
	case "schema-enum-removed":
		return d("schema", "An input property no longer has an enum.",
			"A property that was restricted to a fixed list of values now accepts anything its type allows.")
	case "schema-enum-added":
		return d("schema", "An input property gained an enum.",
			"A property is now restricted to a fixed list of values.")
	case "schema-constraint-relaxed":
		return d("schema", "An input constraint was relaxed.",
			"A length or range bound was raised or removed, a pattern or format was removed, or a required property became optional.")
	case "schema-constraint-tightened":
		return d("schema", "An input constraint was tightened.",
			"A length or range bound, pattern, format or additionalProperties: false was added or changed to be stricter.")
	case "schema-additional-props-opened":
		return d("schema", "An input object now accepts undeclared properties.",
			"additionalProperties went from false to open: the tool now accepts arbitrary extra keys that no schema describes.")
	case "tool-annotations-modified":
		return d("tool", "A tool's annotations changed.",
			"The tool's annotations (hints such as readOnlyHint or destructiveHint) changed. Annotations are the server's own claims, never proof of behaviour, but a changed claim deserves a look.")
	case "schema-out-added":
		return d("output-schema", "A tool now declares an output schema.",
			"The tool declares an outputSchema it did not declare when pinned. Structured output changes what the client feeds back to the model.")
	case "schema-out-removed":
		return d("output-schema", "A tool no longer declares an output schema.",
			"The outputSchema recorded at pin time is gone.")
	case "schema-out-modified":
		return d("output-schema", "A tool's output schema changed in a way that cannot be classified finely.",
			"The outputSchema changed and a structural comparison was not possible (a skeleton is missing) or a $ref or truncation marker changed.")
	case "schema-out-cosmetic-modified":
		return d("output-schema", "A tool's output schema changed cosmetically.",
			"The outputSchema's bytes changed but not its security-relevant structure.")
	case "resource-added":
		return d("resource", "The server now lists a resource that was not pinned.",
			"A resource URI appeared that was not present at pin time. Resource contents can be pulled into a model's context.")
	case "resource-removed":
		return d("resource", "A pinned resource is no longer listed.",
			"A resource recorded in the lock is missing from the server.")
	case "resource-modified":
		return d("resource", "A resource's name, description or MIME type changed.",
			"A listed resource kept its URI but its name, description or MIME type changed.")
	case "prompt-added":
		return d("prompt", "The server now offers a prompt that was not pinned.",
			"A prompt appeared that was not present at pin time. Prompts are templates injected into conversations.")
	case "prompt-removed":
		return d("prompt", "A pinned prompt is no longer offered.",
			"A prompt recorded in the lock is missing from the server.")
	case "prompt-modified":
		return d("prompt", "A prompt's description or arguments changed.",
			"A prompt kept its name but its description or argument list changed.")
	case "schema-version-migrated":
		return d("approval", "The lock was written under an older lock-format level.",
			"The baseline uses an older schema_version than warden writes, so it does not commit everything a current lock does (for example tool annotations and output schemas). Re-pin to record the surface under the current level.")
	case "unapproved-change":
		return d("approval", "The surface no longer matches the approved digest.",
			"The lock was approved for a specific overall digest, and the server's current surface hashes to a different one. Whatever else changed, the approval no longer covers what the server offers.")
	case "digest-mismatch-unexplained":
		return d("integrity", "The overall digest differs but no entry-level change explains it.",
			"The stored overall_digest does not match the fresh capture, yet no tool, resource or prompt comparison found a difference. The lock may have been edited by hand, or it holds duplicate entries; treat it as tampered until reviewed.")
	}
	if rest, ok := strings.CutPrefix(class, "schema-out-"); ok {
		// Structural output-schema items reuse the input-schema classes with
		// "schema-" replaced by "schema-out-".
		base := describeDrift("schema-" + rest)
		if base.Known {
			return d("output-schema", "Output schema: "+lowerFirst(base.Short),
				"This change is in the tool's outputSchema, which describes the structured results it returns, not its inputs. "+base.Full)
		}
	}
	return RuleText{
		Short:    "The server's declared surface differs from the pinned lock (" + class + ").",
		Full:     "warden reported a drift class it has no description for. Compare the pinned lock with a fresh capture to see what changed.",
		Kind:     "drift",
		Category: "other",
	}
}

// describeFinding covers every embedded-finding rule of the lock format.
func describeFinding(ruleID string) RuleText {
	f := func(cat, short, full string) RuleText {
		return RuleText{Short: short, Full: full, Kind: "finding", Category: cat, Known: true}
	}
	capability := func(what string) RuleText {
		return f("capability", "A tool appears able to "+what+".",
			"warden derived this capability from the tool's name or its top-level input property names. It is a heuristic about what the tool can do, meant to focus review; it is not proof, and a tool can do more than its name says.")
	}
	secret := func(what string) RuleText {
		return f("secret", "A string the server declares looks like "+what+".",
			"A tool name, description, schema default, enum or example value, a resource or prompt field, or a launch argument matches the pattern of "+what+". The snippet is redacted. If it is real, revoke it: everything a server declares is sent to every client and model that connects.")
	}
	switch ruleID {
	case "WRD-CAP-SHELL":
		return capability("run shell commands")
	case "WRD-CAP-FS-WRITE":
		return capability("write or delete files")
	case "WRD-CAP-FS-READ":
		return capability("read files")
	case "WRD-CAP-HTTP":
		return capability("make HTTP requests")
	case "WRD-CAP-SQL":
		return capability("run database queries")
	case "WRD-SCHEMA-MALFORMED":
		return f("schema", "A tool's inputSchema is not a JSON object.",
			"The tool declares an inputSchema that is a string, number, array or boolean. MCP requires an object, and warden cannot derive capabilities from it, so this tool was not analysed.")
	case "WRD-SEC-OPENAI":
		return secret("an OpenAI API key")
	case "WRD-SEC-GITHUB":
		return secret("a GitHub token")
	case "WRD-SEC-AWS-AKID":
		return secret("an AWS access key id")
	case "WRD-SEC-SLACK":
		return secret("a Slack token")
	case "WRD-SEC-PRIVKEY":
		return secret("a private key")
	case "WRD-SEC-JWT":
		return secret("a JSON Web Token")
	case "WRD-SEC-ENTROPY":
		return secret("a high-entropy secret")
	case "WRD-SUP-CURL-PIPE":
		return f("supply-chain", "The launch downloads a script and pipes it into an interpreter.",
			"The server's launch command fetches remote content with curl or wget and pipes it to a shell or interpreter. Whatever the remote host serves at launch time runs, so the pinned surface says nothing about the next run.")
	case "WRD-SUP-LATEST-TAG":
		return f("supply-chain", "The launch installs a package at its floating 'latest' tag.",
			"An npx, uvx or pip package spec in the launch command asks for 'latest'. The package can change under the same launch command; pin an exact version.")
	case "WRD-SUP-NPX-UNPINNED":
		return f("supply-chain", "The launch runs an npx package without a pinned version.",
			"npx resolves an unversioned package to whatever is newest when it runs, so the server code can change without the launch command changing. Pin an exact version (package@1.2.3).")
	case "WRD-SUP-UVX-UNPINNED":
		return f("supply-chain", "The launch runs a uvx package without a pinned version.",
			"uvx fetches the newest matching release at run time unless the spec pins it. Pin an exact version (package==1.2.3) or a commit.")
	case "WRD-SUP-PIP-UNPINNED":
		return f("supply-chain", "The launch pip-installs a package without a pinned version.",
			"pip install of an unpinned requirement takes whatever the index serves at run time. Pin exact versions, ideally with --require-hashes.")
	}
	return RuleText{
		Short:    "warden reported a finding (" + ruleID + ").",
		Full:     "warden reported a finding rule it has no description for.",
		Kind:     "finding",
		Category: "other",
	}
}

// lowerFirst lower-cases the first letter of a sentence so it can follow a
// prefix ("Output schema: an input …").
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// helpText returns the rule help in plain text and Markdown: what the rule
// means, then how to review the change and re-pin once it is accepted.
func helpText(ruleID string, rt RuleText) (text, markdown string) {
	var t, m strings.Builder
	t.WriteString(rt.Full)
	t.WriteString("\n\n")
	m.WriteString("**" + ruleID + "** — " + rt.Short + "\n\n")
	m.WriteString(rt.Full)
	m.WriteString("\n\n")
	if rt.Kind == "drift" {
		t.WriteString("How to review: capture the server as it is now into a scratch lock " +
			"(warden pin --lock candidate.lock <server>) and compare it with the pinned one " +
			"(warden diff warden.lock candidate.lock). If the change is expected, re-pin and approve it: " +
			"warden pin --approve --approver <you> <server>. If it is not, treat the server update as suspect and do not re-pin.")
		m.WriteString("#### How to review\n\n" +
			"1. Capture the server as it is now into a scratch lock: `warden pin --lock candidate.lock <server>`.\n" +
			"2. Compare it with the pinned lock: `warden diff warden.lock candidate.lock`.\n" +
			"3. If the change is expected, re-pin and approve it: `warden pin --approve --approver <you> <server>`, and commit the new `warden.lock`.\n" +
			"4. If it is not expected, do not re-pin: treat the server update as suspect.\n")
	} else {
		t.WriteString("Findings are informational and never change warden's exit code. " +
			"Review the tool or launch command named in the alert; once the surface is acceptable, " +
			"warden pin --approve --approver <you> <server> records it (with its findings) in warden.lock.")
		m.WriteString("#### How to review\n\n" +
			"Findings are informational and never change warden's exit code. Review the tool or launch command named in the alert. " +
			"Once the surface is acceptable, `warden pin --approve --approver <you> <server>` records it, findings included, in `warden.lock`.\n")
	}
	return t.String(), m.String()
}
