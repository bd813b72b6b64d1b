package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/jsonv"
)

// Allowlist is the tools a client config lets an agent call, and where
// the config says so.
type Allowlist struct {
	// Tools are tool names; "*" stands for every tool.
	Tools []string
	// Except are tools the config keeps from the agent even so (Codex's
	// disabled_tools): a change to one reaches no agent.
	Except []string
	// From says where the allowlist is written, e.g. `"tools" of server
	// "github" in .github/mcp.json`. It is config text, never the
	// server's, so every report may carry it.
	From string
}

// Names reports whether the allowlist lets an agent call tool.
func (a Allowlist) Names(tool string) bool {
	if slices.Contains(a.Except, tool) {
		return false
	}
	return slices.Contains(a.Tools, "*") || slices.Contains(a.Tools, tool)
}

// allowlistsOf says which of the server's allowlists name the tool a drift
// item is about: an allowlist by name lets the changed tool through to the
// agent unreviewed, so every report names it beside the item.
func allowlistsOf(lists []Allowlist, it drift.Item) []string {
	tool, ok := strings.CutPrefix(it.Target, drift.ToolPrefix)
	if !ok {
		return nil
	}
	var from []string
	for _, a := range lists {
		if a.Names(tool) {
			from = append(from, a.From)
		}
	}
	return from
}

// allowlistedDrift are the server's drift items on allowlisted tools,
// each with the allowlists naming it, in the drift's order.
func (s ServerReport) allowlistedDrift() []allowlisted {
	var out []allowlisted
	for _, it := range s.Drift {
		if from := allowlistsOf(s.Allowlists, it); len(from) > 0 {
			out = append(out, allowlisted{item: it, from: from})
		}
	}
	return out
}

// allowlisted is a drift item on a tool that allowlists name.
type allowlisted struct {
	item drift.Item
	from []string
}

// allowlistText is the text report's line about a drifted allowlisted
// tool. The target is the server's text and goes through Message.
func allowlistText(a allowlisted) string {
	return "allowlisted: " + Message(a.item.Target) + " drifted, and " + Message(strings.Join(a.from, "; ")) +
		" lets an agent call it by name: review the change before the allowlist lets it through\n"
}

// serverHeader is the lines a server's report opens with in a run over
// several configs or with a launch note: which configs name the server and
// how its launch differs from what they say.
func serverHeader(s ServerReport) string {
	var b strings.Builder
	if len(s.Configs) > 0 {
		b.WriteString("configs: " + Message(strings.Join(s.Configs, ", ")) + "\n")
	}
	for _, n := range s.Notes {
		b.WriteString("launch: " + Message(n) + "\n")
	}
	return b.String()
}

// serverRecord is the --json record of kind "server" giving the configs
// naming a server and its launch notes; nil when there is neither.
func serverRecord(s ServerReport) *jsonv.Value {
	if len(s.Configs) == 0 && len(s.Notes) == 0 {
		return nil
	}
	members := []jsonv.Member{jsonv.M("server", jsonv.NewString(s.Name)), jsonv.M("kind", jsonv.NewString("server"))}
	if len(s.Configs) > 0 {
		members = append(members, jsonv.M("configs", stringArray(s.Configs)))
	}
	if len(s.Notes) > 0 {
		members = append(members, jsonv.M("launch_notes", stringArray(s.Notes)))
	}
	return jsonv.NewObject(members...)
}

// stringArray is a JSON array of strings, each clipped.
func stringArray(ss []string) *jsonv.Value {
	items := make([]*jsonv.Value, len(ss))
	for i, s := range ss {
		items[i] = jsonv.NewString(Clip(s, MaxMessageBytes))
	}
	return jsonv.NewArray(items...)
}

// writeServerNotes lists, below the summary's server table, the configs
// naming each server and its launch notes, for the servers that have any.
func writeServerNotes(b *strings.Builder, servers []ServerReport) {
	first := true
	for _, s := range servers {
		if len(s.Configs) == 0 && len(s.Notes) == 0 {
			continue
		}
		if first {
			b.WriteByte('\n')
			first = false
		}
		b.WriteString("- " + cell(s.Name) + ":")
		if len(s.Configs) > 0 {
			codes := make([]string, len(s.Configs))
			for i, c := range s.Configs {
				codes[i] = code(c)
			}
			b.WriteString(" named in " + strings.Join(codes, ", ") + ".")
		}
		for _, n := range s.Notes {
			b.WriteString(" Launch: " + cell(n) + ".")
		}
		b.WriteByte('\n')
	}
}

// writeAllowlistedMarkdown says, above a server's drift table, which
// drifted tools an allowlist lets an agent call by name.
func writeAllowlistedMarkdown(b *strings.Builder, items []allowlisted) {
	if len(items) == 0 {
		return
	}
	b.WriteString("\n**Allowlisted tools drifted**: an allowlist by name lets the changed tool through unreviewed.\n\n")
	for i, a := range items {
		if i == DefaultSummaryRows {
			fmt.Fprintf(b, "- and %d more (`warden check --json` lists them all)\n", len(items)-i)
			break
		}
		b.WriteString("- " + code(a.item.Target) + ": " + cell(strings.Join(a.from, "; ")) + "\n")
	}
	// A table right below would continue the list.
	b.WriteByte('\n')
}
