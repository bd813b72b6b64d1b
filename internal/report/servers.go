package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/wardenlock/warden/internal/drift"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// ServerReport is one server's part of a report over a client config.
type ServerReport struct {
	// Name is the server's name in the config.
	Name     string
	Findings []lock.Finding
	Drift    []drift.Item
	// Error is why the server could not be checked or pinned ("" if it
	// was); Skipped says the config disabled it.
	Error   string
	Skipped bool
	// SARIF locates the server's results in its own lock file.
	SARIF SARIFOptions
}

// ServerJSONL is the --json output for a run over several servers: every
// record of JSONL with "server" as its first key, plus a record of kind
// "error" for a server that failed and "skipped" for one the config
// disabled.
func ServerJSONL(servers []ServerReport) string {
	var b strings.Builder
	for _, s := range servers {
		name := jsonv.M("server", jsonv.NewString(s.Name))
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
		for _, rec := range records(s.Findings, s.Drift) {
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
		one, err := BuildSARIF(s.Findings, s.Drift, s.SARIF)
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
