package report

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/report/reporttest"
)

// injected is the tool name: a legacy runner command that sets an
// output from anywhere in a line.
const injected = "##[set-output name=injected;]pwned"

func TestInert(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "tools/get_weather high", "tools/get_weather high"},
		{"legacy at start", injected, `#\x23[set-output name=injected;]pwned`},
		{"legacy mid-line", "  high  tool-added  tools/" + injected, `  high  tool-added  tools/#\x23[set-output name=injected;]pwned`},
		{"legacy twice", "##[error]a ##[warning]b", `#\x23[error]a #\x23[warning]b`},
		{"three hashes", "###[add-mask]x", `##\x23[add-mask]x`},
		{"v2 at start", "::set-output name=x::y", `\x3a:set-output name=x::y`},
		{"v2 after spaces", "   ::error::x", `   \x3a:error::x`},
		{"v2 after invisible characters", "\u200b\u00a0\t::error::x", "\u200b\u00a0\t\\x3a:error::x"},
		{"v2 after a carriage return", "ok\r::error::x", "ok\r\\x3a:error::x"},
		{"v2 after a newline", "ok\n::error::x\n##[group]g", "ok\n\\x3a:error::x\n#\\x23[group]g"},
		{"colons not at the start", "tools/a::b ::error::x", "tools/a::b ::error::x"},
		{"single colon", ":error:x", ":error:x"},
		{"empty", "", ""},
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
			if cmds := reporttest.RunnerCommands(got); len(cmds) != 0 {
				t.Errorf("the runner would still execute %+v from %q", cmds, got)
			}
		})
	}
}

// TestJobLog writes hostile text through a JobLog, split across writes at
// awkward places, between warden's own commands, and checks with a model of
// the runner that it executes exactly warden's commands.
func TestJobLog(t *testing.T) {
	var out, errOut bytes.Buffer
	log := NewJobLog(&out, &errOut)
	write := func(w io.Writer, s string) {
		t.Helper()
		if _, err := io.WriteString(w, s); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(log.Mask("s3cr3t"))
	resume, err := log.StopCommands("0123abcd")
	must(err)
	// "##" and "[" arrive in different writes; so do ":" and ":".
	write(log.Stdout(), "DRIFT  tools/#")
	write(log.Stdout(), "#[set-output name=injected;]pwned\n:")
	write(log.Stdout(), ":0123abcd::\r##[add-mask]x\npartial ")
	must(resume())
	must(log.Command("error", []Property{{"title", "WRD-DRIFT-TOOL-ADDED"}}, "Tool '"+injected+"' added"))
	write(log.Stderr(), "error: lock: tool \""+injected+"\"\n::set-output name=verdict::clean")
	must(log.Flush())

	type cmd struct{ name, data string }
	var got []cmd
	for _, c := range reporttest.RunnerCommands(out.String()) {
		got = append(got, cmd{c.Name, c.Data})
	}
	want := []cmd{
		{"add-mask", "s3cr3t"},
		{"stop-commands", "0123abcd"},
		{"0123abcd", ""},
		{"error", `Tool '#\x23[set-output name=injected;]pwned' added`},
	}
	if len(got) != len(want) {
		t.Fatalf("the runner executes %q, want %q\nstdout:\n%s", got, want, out.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("command %d = %q, want %q", i, got[i], want[i])
		}
	}
	if cmds := reporttest.RunnerCommands(errOut.String()); len(cmds) != 0 {
		t.Errorf("stderr carries commands %+v:\n%s", cmds, errOut.String())
	}
	for _, s := range []string{out.String(), errOut.String()} {
		if strings.Contains(s, "##[") {
			t.Errorf("a legacy command prefix survived:\n%s", s)
		}
	}
	// The text is all there, readable, and the partial line was ended
	// before the command so that the command starts its own line.
	for _, want := range []string{
		"DRIFT  tools/#\\x23[set-output name=injected;]pwned\n",
		"\\x3a:0123abcd::\r#\\x23[add-mask]x\n",
		"partial \n::0123abcd::\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	if want := "error: lock: tool \"#\\x23[set-output name=injected;]pwned\"\n\\x3a:set-output name=verdict::clean\n"; errOut.String() != want {
		t.Errorf("stderr = %q, want %q", errOut.String(), want)
	}
}

func TestJobLogLineCap(t *testing.T) {
	tests := []struct {
		name string
		line string
	}{
		{"ascii", strings.Repeat("K", 10<<20)},
		{"multibyte at the cut", strings.Repeat("é", MaxLogLineBytes)},
		{"legacy prefix at the cut", strings.Repeat("x", MaxLogLineBytes-2) + injected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			log := NewJobLog(&out, io.Discard)
			// Written in pieces, as a bufio.Writer would.
			for s := tt.line + "\nnext\n"; s != ""; {
				n := min(len(s), 4096)
				if _, err := io.WriteString(log.Stdout(), s[:n]); err != nil {
					t.Fatal(err)
				}
				s = s[n:]
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if len(lines) != 2 || lines[1] != "next" {
				t.Fatalf("got %d lines, want the capped line and %q", len(lines), "next")
			}
			if n := len(lines[0]); n > MaxLogLineBytes+64 {
				t.Errorf("line is %d bytes, over the %d cap", n, MaxLogLineBytes)
			}
			if !strings.Contains(lines[0], "more bytes of this line not shown]") {
				t.Errorf("the cut is not marked: %q", lines[0][len(lines[0])-80:])
			}
			if !strings.HasPrefix(tt.line, strings.TrimRight(lines[0][:MaxLogLineBytes-4], "\ufffd")) || strings.ContainsRune(lines[0], '\ufffd') {
				t.Errorf("the kept part is not a clean prefix of the line")
			}
			if strings.Contains(lines[0], "##[") {
				t.Errorf("a legacy prefix survived the cut")
			}
		})
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		max      int
		want     string
		wantHead string
		wantTail string
	}{
		{"short", "read lock x: bad", 100, "read lock x: bad", "", ""},
		{"exactly max", "abcd", 4, "abcd", "", ""},
		{"ascii", "0123456789", 6, "012…[4 bytes elided]…789", "", ""},
		{"huge key", "read lock: tool \"" + strings.Repeat("K", 10<<20) + "\": digest mismatch", 64, "", "read lock: tool \"KKKK", "KKK\": digest mismatch"},
		{"runes", strings.Repeat("é", 10), 7, "é…[14 bytes elided]…éé", "", ""},
		{"tiny max", "abcdef", 0, "a…[4 bytes elided]…f", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Clip(tt.in, tt.max)
			if tt.want != "" && got != tt.want {
				t.Errorf("Clip = %q, want %q", got, tt.want)
			}
			if !strings.HasPrefix(got, tt.wantHead) || !strings.HasSuffix(got, tt.wantTail) {
				t.Errorf("Clip = %q, want it to start %q and end %q", got, tt.wantHead, tt.wantTail)
			}
			if len(tt.in) > tt.max && len(got) > max(tt.max, 2)+40 {
				t.Errorf("Clip kept %d bytes for max %d", len(got), tt.max)
			}
			if !strings.ContainsRune(tt.in, '\ufffd') && strings.ContainsRune(strings.ToValidUTF8(got, "\ufffd"), '\ufffd') {
				t.Errorf("Clip cut inside a character: %q", got)
			}
		})
	}
}

// FuzzJobLog checks that no text written through a JobLog, however it is
// split across writes, is read by the runner as a command, and that a
// command whose message is arbitrary text is read as exactly that one
// command with no legacy prefix left in it.
func FuzzJobLog(f *testing.F) {
	for _, seed := range []string{injected, "::error::x", "a\r::set-output name=x::y", " \u200b::x::", "###[", "#", "\n\n::"} {
		f.Add(seed, 3)
	}
	f.Fuzz(func(t *testing.T, text string, split int) {
		var out bytes.Buffer
		log := NewJobLog(&out, io.Discard)
		if split < 1 {
			split = 1
		}
		for s := text; s != ""; {
			n := min(split, len(s))
			if _, err := io.WriteString(log.Stdout(), s[:n]); err != nil {
				t.Fatal(err)
			}
			s = s[n:]
		}
		if err := log.Command("warning", []Property{{"title", text}}, text); err != nil {
			t.Fatal(err)
		}
		if err := log.Flush(); err != nil {
			t.Fatal(err)
		}
		cmds := reporttest.RunnerCommands(out.String())
		if len(cmds) != 1 || cmds[0].Name != "warning" || cmds[0].Legacy {
			t.Fatalf("the runner reads %+v from %q", cmds, out.String())
		}
		if strings.Contains(out.String(), "##[") {
			t.Fatalf("a legacy prefix survived: %q", out.String())
		}
	})
}
