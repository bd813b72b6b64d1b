package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/explain"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// ServerReport is one server's part of a report over a client config.
type ServerReport struct {
	// Name is the server's name in the config.
	Name string
	// Mode is "pin" or "check"; LockPath is the lock as shown to the user.
	Mode     string
	LockPath string
	// Lock is the lock a pin wrote.
	Lock     *lock.Lock
	Findings []lock.Finding
	Drift    []drift.Item
	// Error is why the server could not be checked or pinned ("" if it
	// was); Skipped says the config disabled it.
	Error   string
	Skipped bool
	// SARIF locates the server's results in its own lock file.
	SARIF SARIFOptions
	// Explanations are parallel to Drift (or nil): the server's words
	// behind each item, for the text report and the summary only.
	Explanations []explain.Explanation
	// Accepted are the server's lists accepted as errors (AcceptedList).
	Accepted []AcceptedList
	// Configs are the client configs that name the server, set when the
	// run read more than one.
	Configs []string
	// Allowlists are the configs' allowlists of the server's tools: a
	// drift item on a tool one names is reported with it.
	Allowlists []Allowlist
	// Notes say how the launch differs from the configs as written
	// (clientconfig.Server.LaunchNote).
	Notes []string
}

// ServerJSONL is the --json output for a run over several servers: every
// record of JSONL with "server" as its first key, plus a record of kind
// "error" for a server that failed and "skipped" for one the config
// disabled.
func ServerJSONL(servers []ServerReport) string {
	var b strings.Builder
	for _, s := range servers {
		name := jsonv.M("server", jsonv.NewString(s.Name))
		if rec := serverRecord(s); rec != nil {
			b.WriteString(pyfmt.Dumps(rec, false))
			b.WriteByte('\n')
		}
		switch {
		case s.Skipped:
			b.WriteString(pyfmt.Dumps(jsonv.NewObject(name, jsonv.M("kind", jsonv.NewString("skipped")),
				jsonv.M("message", jsonv.NewString("disabled in the config"))), false))
			b.WriteByte('\n')
			continue
		case s.Error != "":
			b.WriteString(pyfmt.Dumps(jsonv.NewObject(name, jsonv.M("kind", jsonv.NewString("error")),
				jsonv.M("message", jsonv.NewString(Clip(s.Error, MaxMessageBytes)))), false))
			b.WriteByte('\n')
			continue
		}
		for i, rec := range records(s.Findings, s.Drift) {
			rec.Members = append([]jsonv.Member{name}, rec.Members...)
			if j := i - len(s.Findings); j >= 0 && j < len(s.Drift) {
				if from := allowlistsOf(s.Allowlists, s.Drift[j]); len(from) > 0 {
					rec.Members = append(rec.Members, jsonv.M("allowlists", stringArray(from)))
				}
			}
			if j := i - len(s.Findings); j >= 0 && j < len(s.Explanations) && !s.Explanations[j].Empty() {
				// Encoding a plain struct cannot fail; were it to, the
				// record goes out without its explanation.
				if v, err := explanationJSON(s.Explanations[j]); err == nil {
					rec.Members = append(rec.Members, jsonv.M("explanation", v))
				}
			}
			b.WriteString(pyfmt.Dumps(rec, false))
			b.WriteByte('\n')
		}
		for _, a := range s.Accepted {
			rec := acceptedRecord(a)
			rec.Members = append([]jsonv.Member{name}, rec.Members...)
			b.WriteString(pyfmt.Dumps(rec, false))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// WriteServerJSONL writes ServerJSONL's text to w.
func WriteServerJSONL(w io.Writer, servers []ServerReport) error {
	if _, err := io.WriteString(w, ServerJSONL(servers)); err != nil {
		return fmt.Errorf("write JSON lines: %w", err)
	}
	return nil
}

// AutomationID is the SARIF run category of one server of a config, so
// that code scanning keeps each server's alerts apart.
func AutomationID(server string) string {
	return "warden/" + server + "/"
}

// WriteServerSARIF writes one SARIF report with a run per server (servers
// that failed or were skipped have none), each with its own automation id
// and its results on its own lock file's lines.
func WriteServerSARIF(w io.Writer, servers []ServerReport) error {
	rep, err := sarif.New(sarif.Version210)
	if err != nil {
		return fmt.Errorf("create SARIF report: %w", err)
	}
	for _, s := range servers {
		if s.Skipped || s.Error != "" {
			continue
		}
		o := s.SARIF
		o.Allowlists = s.Allowlists
		one, err := BuildSARIF(s.Findings, s.Drift, o)
		if err != nil {
			return err
		}
		id := AutomationID(s.Name)
		for _, run := range one.Runs {
			run.WithAutomationDetails(&sarif.RunAutomationDetails{ID: &id})
			rep.AddRun(run)
		}
	}
	return encodeSARIF(w, rep)
}

// ServerCounts tallies a run over several servers.
type ServerCounts struct {
	Clean, Drift, Failed, Skipped int
}

// CountServers tallies the servers' outcomes.
func CountServers(servers []ServerReport) ServerCounts {
	var c ServerCounts
	for _, s := range servers {
		switch {
		case s.Skipped:
			c.Skipped++
		case s.Error != "":
			c.Failed++
		case len(s.Drift) > 0:
			c.Drift++
		default:
			c.Clean++
		}
	}
	return c
}

// Verdict is the run's verdict: error if any server failed, else drift if
// any drifted, else clean.
func (c ServerCounts) Verdict() string {
	switch {
	case c.Failed > 0:
		return VerdictError
	case c.Drift > 0:
		return VerdictDrift
	}
	return VerdictClean
}

// WriteServerText writes the text report of a run over several servers:
// each server's usual report with every line prefixed by "[name] ", then a
// line with the counts.
func WriteServerText(w io.Writer, servers []ServerReport) error {
	var b strings.Builder
	for _, s := range servers {
		prefix := "[" + Message(s.Name) + "] "
		var one strings.Builder
		one.WriteString(serverHeader(s))
		switch {
		case s.Skipped:
			one.WriteString("skipped: disabled in the config\n")
		case s.Error != "":
			one.WriteString("error: " + Message(s.Error) + "\n")
		case s.Mode == "pin":
			if err := WritePinText(&one, s.LockPath, s.Lock, s.Findings); err != nil {
				return err
			}
		default:
			if err := WriteCheckTextExplained(&one, s.LockPath, s.Drift, s.Explanations); err != nil {
				return err
			}
			for _, a := range s.allowlistedDrift() {
				one.WriteString(allowlistText(a))
			}
			if err := WriteAcceptedText(&one, s.Accepted); err != nil {
				return err
			}
		}
		for _, line := range strings.SplitAfter(one.String(), "\n") {
			if line != "" {
				b.WriteString(prefix + line)
			}
		}
	}
	c := CountServers(servers)
	fmt.Fprintf(&b, "%d server(s): %d clean, %d drift, %d error, %d skipped\n", len(servers), c.Clean, c.Drift, c.Failed, c.Skipped)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// RenderServerSummary is the job summary of a run over several servers: the
// verdict, a table with a row per server, and each drifting server's drift
// table. Server-controlled text is escaped and clipped as in RenderSummary.
func RenderServerSummary(mode string, servers []ServerReport, sarifPath string) string {
	var b strings.Builder
	c := CountServers(servers)
	fmt.Fprintf(&b, "## warden %s: %s\n\n", mode, c.Verdict())
	fmt.Fprintf(&b, "%d server(s): %d clean, %d drift, %d error, %d skipped.\n\n", len(servers), c.Clean, c.Drift, c.Failed, c.Skipped)
	b.WriteString("| server | lock | verdict | drift | findings |\n|---|---|---|---|---|\n")
	for _, s := range servers {
		verdict := VerdictClean
		switch {
		case s.Skipped:
			verdict = "skipped"
		case s.Error != "":
			verdict = VerdictError + ": " + cell(s.Error)
		case len(s.Drift) > 0:
			verdict = VerdictDrift
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d |\n", cell(s.Name), code(s.LockPath), verdict, len(s.Drift), len(s.Findings))
	}
	writeServerNotes(&b, servers)
	view := mdView{maxRows: DefaultSummaryRows, cellBytes: maxCellBytes, rowBudget: maxSummaryBytes,
		quote: summaryQuote, quoteBudget: summaryQuoteBudget}
	for _, s := range servers {
		if (len(s.Drift) == 0 && len(s.Accepted) == 0) || s.Skipped || s.Error != "" {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", cell(s.Name))
		if len(s.Drift) > 0 {
			entries := worstFirst(s.Drift, s.Explanations)
			b.WriteString(verdictLine(entries))
			writeAllowlistedMarkdown(&b, s.allowlistedDrift())
			writeDriftTables(&b, entries, view, "The SARIF file has them all.")
			writeQuotes(&b, entries, view.quote, view.quoteBudget, "`warden check --json` shows them all")
		}
		// One level below the server's heading.
		var acc strings.Builder
		writeAcceptedMarkdown(&acc, mode, s.Accepted)
		b.WriteString(strings.Replace(acc.String(), "### ", "#### ", 1))
	}
	if sarifPath != "" {
		fmt.Fprintf(&b, "\nSARIF (a run per server): %s\n", code(sarifPath))
	}
	return capSummary(b.String())
}
