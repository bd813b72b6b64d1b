package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/wardenlock/warden/internal/report/reporttest"
)

// TestInertTriggers covers what the runner may read as a command beyond
// TestInert's cases: command names in any case, the stop-commands trick,
// Unicode line separators, and lines that are JSON texts, which must stay
// valid JSON with the same value.
func TestInertTriggers(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"legacy in capitals", "x ##[ERROR]boom", `x #\x23[ERROR]boom`},
		{"stop-commands", "::stop-commands::tok\n::error::x\n::tok::", "\\x3a:stop-commands::tok\n\\x3a:error::x\n\\x3a:tok::"},
		{"add-mask after spaces", "  ::add-mask::secret", `  \x3a:add-mask::secret`},
		{"carriage return", "\r::warning::x", "\r\\x3a:warning::x"},
		{"line separator", "a\u2028::error::x", "a\u2028\\x3a:error::x"},
		{"paragraph separator", "a\u2029 ::error::x", "a\u2029 \\x3a:error::x"},
		{"next line", "a\u0085::error::x", "a\u0085\\x3a:error::x"},
		{"json legacy", `{"target": "tools/##[error]x", "n": 1}`, `{"target": "tools/#\u0023[error]x", "n": 1}`},
		{"json separator", "{\"d\": \"a\u2028::error::x\"}", "{\"d\": \"a\u2028\\u003a:error::x\"}"},
		{"json-looking text", `{"a": "##[error]x"`, `{"a": "#\x23[error]x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Inert(tt.in)
			if got != tt.want {
				t.Errorf("Inert(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Inert(got); again != got {
				t.Errorf("Inert is not idempotent: %q then %q", got, again)
			}
			if tr := reporttest.Triggers(got); len(tr) != 0 {
				t.Errorf("lines a runner could read as commands: %q", tr)
			}
			if json.Valid([]byte(tt.in)) {
				var before, after any
				if err := json.Unmarshal([]byte(tt.in), &before); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal([]byte(got), &after); err != nil {
					t.Fatalf("the neutralised JSON line is not JSON: %v\n%s", err, got)
				}
				if b, a := mustJSON(t, before), mustJSON(t, after); a != b {
					t.Errorf("the JSON value changed: %s, want %s", a, b)
				}
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInertWriter writes hostile text split at every byte and checks that
// the output carries no trigger, that lines are kept whole (no cap), and
// that text without triggers passes through byte for byte, an unterminated
// last line included.
func TestInertWriter(t *testing.T) {
	long := strings.Repeat("K", 3*MaxLogLineBytes)
	tests := []struct {
		name, in, want string
	}{
		{"plain", "OK no drift vs warden.lock\n  high  tool-added  tools/x\nno newline", "OK no drift vs warden.lock\n  high  tool-added  tools/x\nno newline"},
		{"hostile", "  high  tools/##[error]x\n::error::y\r::warning::z\n", "  high  tools/#\\x23[error]x\n\\x3a:error::y\r\\x3a:warning::z\n"},
		{"long line", long + "##[error]\n", long + "#\\x23[error]\n"},
		{"trailing partial", "a\n::set-output name=x::y", "a\n\\x3a:set-output name=x::y"},
	}
	for _, tt := range tests {
		for _, split := range []int{1, 2, 3, 4096, len(tt.in)} {
			var out bytes.Buffer
			w := NewInertWriter(&out)
			for s := tt.in; s != ""; {
				n := min(split, len(s))
				if k, err := io.WriteString(w, s[:n]); err != nil || k != n {
					t.Fatalf("%s: Write = %d, %v", tt.name, k, err)
				}
				s = s[n:]
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("%s split %d: got %.200q, want %.200q", tt.name, split, out.String(), tt.want)
			}
			if tr := reporttest.Triggers(out.String()); len(tr) != 0 {
				t.Errorf("%s split %d: lines a runner could read as commands: %.200q", tt.name, split, tr)
			}
		}
	}
}

// TestInertWriterConcurrent writes whole lines from several goroutines; each
// line arrives intact and neutralised.
func TestInertWriterConcurrent(t *testing.T) {
	var out bytes.Buffer
	w := NewInertWriter(&out)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				io.WriteString(w, "::error::x ##[warning]y\n")
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1600 {
		t.Fatalf("got %d lines, want 1600", len(lines))
	}
	for _, l := range lines {
		if l != `\x3a:error::x #\x23[warning]y` {
			t.Fatalf("line %q", l)
		}
	}
}

// FuzzInertWriter checks that no text written through an InertWriter,
// however it is split, leaves a line a runner could read as a command, and
// that text without "::" or "##[" is written unchanged.
func FuzzInertWriter(f *testing.F) {
	for _, seed := range []string{injected, "::error::x", "a\r::set-output name=x::y", " \u200b::x::", "###[", "{\"a\": \"##[x\"}", "a\u2028::b", "#"} {
		f.Add(seed, 3)
	}
	f.Fuzz(func(t *testing.T, text string, split int) {
		var out bytes.Buffer
		w := NewInertWriter(&out)
		split = max(split, 1)
		for s := text; s != ""; {
			n := min(split, len(s))
			if _, err := io.WriteString(w, s[:n]); err != nil {
				t.Fatal(err)
			}
			s = s[n:]
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if tr := reporttest.Triggers(out.String()); len(tr) != 0 {
			t.Fatalf("lines a runner could read as commands: %q from %q", tr, text)
		}
		if !strings.Contains(text, "::") && !strings.Contains(text, "##[") && out.String() != text {
			t.Fatalf("text without triggers changed: %q to %q", text, out.String())
		}
	})
}

// TestJobLogCommandWithSeparator: a line separator in a command's property
// or message is not a line end to the runner, so the command stays whole.
func TestJobLogCommandWithSeparator(t *testing.T) {
	var out bytes.Buffer
	log := NewJobLog(&out, io.Discard)
	if err := log.Command("warning", []Property{{"title", "a\u2028b\u0085"}}, "x\u2029::y ##[error]z"); err != nil {
		t.Fatal(err)
	}
	cmds := reporttest.RunnerCommands(out.String())
	if len(cmds) != 1 || cmds[0].Name != "warning" || cmds[0].Data != "x\u2029::y #\\x23[error]z" {
		t.Fatalf("the runner reads %+v from %q", cmds, out.String())
	}
}
