package action

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/report/reporttest"
	"github.com/wardenlock/warden/internal/testserver"
)

// TestRunConfig runs the Action over a client config in both modes: one
// lock per server beside the config, one SARIF run per server with results
// on that server's lock, annotations on the drifting server's lock only, a
// summary row per server, and the worst exit code.
func TestRunConfig(t *testing.T) {
	demo := testserver.Build(t, "testdata/demo/server")
	raw := testserver.Build(t, "testdata/servers/rawserver")
	h := newHarness(t)
	writeConfig := func(demoArgs string) {
		cfg := `{"mcpServers": {
		  "demo": {"command": ` + jsonString(demo) + `, "args": [` + demoArgs + `]},
		  "raw": {"command": ` + jsonString(raw) + `, "args": ["-mode", "clean"]},
		  "retired": {"command": "gone", "disabled": true}
		}}`
		if err := os.MkdirAll(filepath.Join(h.ws, "mcp"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(h.ws, "mcp", ".mcp.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig("")

	h.input("config", "mcp/.mcp.json")
	h.input("mode", "pin")
	r := h.run()
	if r.code != ExitClean {
		t.Fatalf("pin exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, name := range []string{"demo", "raw"} {
		if _, err := os.Stat(filepath.Join(h.ws, "mcp", name+".warden.lock")); err != nil {
			t.Errorf("lock of %s: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(h.ws, "mcp", "retired.warden.lock")); err == nil {
		t.Error("a disabled server was pinned")
	}
	assertOutputs(t, r, map[string]string{"exit-code": "0", "verdict": "clean", "drift-count": "0", "overall-digest": "", "sarif": "warden.sarif"})

	h.reset()
	h.input("config", "mcp/.mcp.json")
	r = h.run()
	if r.code != ExitClean || !strings.Contains(r.stdout, "[demo] OK no drift vs mcp/demo.warden.lock") || !strings.Contains(r.stdout, "[retired] skipped") {
		t.Fatalf("check exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	writeConfig(`"-mutate"`)
	h.reset()
	h.input("config", "mcp/.mcp.json")
	r = h.run()
	if r.code != ExitDrift {
		t.Fatalf("check after the rug-pull: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r.outputs["verdict"] != "drift" || r.outputs["drift-count"] == "0" {
		t.Errorf("outputs = %v", r.outputs)
	}
	if !strings.Contains(r.stdout, "file=mcp/demo.warden.lock") || strings.Contains(r.stdout, "file=mcp/raw.warden.lock") {
		t.Errorf("annotations are not on the drifting server's lock alone:\n%s", r.stdout)
	}
	for _, want := range []string{"| demo | <code>mcp/demo.warden.lock</code> | drift |", "| raw | <code>mcp/raw.warden.lock</code> | clean |", "| retired |", "### demo"} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.summary)
		}
	}
	data, err := os.ReadFile(filepath.Join(h.ws, "warden.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	reporttest.AssertValid(t, h.sarif, data)
	var doc struct {
		Runs []struct {
			AutomationDetails struct{ ID string } `json:"automationDetails"`
			Results           []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || len(doc.Runs) != 2 {
		t.Fatalf("SARIF: %v, %d runs", err, len(doc.Runs))
	}
	for i, name := range []string{"demo", "raw"} {
		run := doc.Runs[i]
		if run.AutomationDetails.ID != "warden/"+name+"/" {
			t.Errorf("run %d automation id %q", i, run.AutomationDetails.ID)
		}
		for _, res := range run.Results {
			if uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; uri != "mcp/"+name+".warden.lock" {
				t.Errorf("run %s has a result on %s", name, uri)
			}
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
