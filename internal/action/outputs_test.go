package action

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// parseOutputFile reads a GITHUB_OUTPUT file the way the Actions runner does:
// NAME=VALUE lines, or NAME<<DELIM heredocs ended by a line equal to DELIM,
// whichever of '=' and '<<' comes first on the line. Later values win.
func parseOutputFile(data string) (map[string]string, error) {
	out := map[string]string{}
	lines := strings.Split(data, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq, hd := strings.Index(line, "="), strings.Index(line, "<<")
		switch {
		case eq >= 0 && (hd < 0 || eq < hd):
			out[line[:eq]] = line[eq+1:]
		case hd >= 0:
			name, delim := line[:hd], line[hd+2:]
			var val []string
			closed := false
			for i++; i < len(lines); i++ {
				if lines[i] == delim {
					closed = true
					break
				}
				val = append(val, lines[i])
			}
			if !closed {
				return out, fmt.Errorf("heredoc %q for %s is never closed", delim, name)
			}
			out[name] = strings.Join(val, "\n")
		default:
			return out, fmt.Errorf("line %d is neither NAME=VALUE nor NAME<<DELIM: %q", i+1, line)
		}
	}
	return out, nil
}

func TestWriteOutputs(t *testing.T) {
	hostile := "x\nverdict<<EOF\nclean\nEOF\nexit-code=0\nghadelimiter_\n"
	outs := []Output{
		{"exit-code", "1"},
		{"verdict", "drift"},
		{"empty", ""},
		{"multi-line", "a\nb\n"},
		{"hostile", hostile},
	}
	var buf bytes.Buffer
	if err := WriteOutputs(&buf, rand.Reader, outs); err != nil {
		t.Fatal(err)
	}
	got, err := parseOutputFile(buf.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	want := map[string]string{"exit-code": "1", "verdict": "drift", "empty": "", "multi-line": "a\nb\n", "hostile": hostile}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsed outputs = %q, want %q\nfile:\n%s", got, want, buf.String())
	}
	// Every value has its own delimiter.
	delims := map[string]bool{}
	names := map[string]bool{}
	for _, o := range outs {
		names[o.Name] = true
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if name, d, ok := strings.Cut(line, "<<"); ok && names[name] && strings.HasPrefix(d, DelimiterPrefix) {
			if !strings.HasPrefix(d, DelimiterPrefix) || len(d) != len(DelimiterPrefix)+32 || delims[d] {
				t.Errorf("delimiter %q is malformed or reused", d)
			}
			delims[d] = true
		}
	}
	if len(delims) != len(outs) {
		t.Errorf("%d delimiters for %d outputs", len(delims), len(outs))
	}
}

func TestWriteOutputsRefuses(t *testing.T) {
	// An all-zero random source makes the delimiter predictable, as an
	// attacker would need it to be.
	zeros := func() *bytes.Reader { return bytes.NewReader(make([]byte, 64)) }
	predicted := DelimiterPrefix + strings.Repeat("0", 32)
	tests := []struct {
		name    string
		random  *bytes.Reader
		outs    []Output
		wantErr string
	}{
		{"value holds its delimiter", zeros(), []Output{{"verdict", "x\n" + predicted + "\nexit-code<<" + predicted}}, "contains its delimiter"},
		{"name with newline", zeros(), []Output{{"a\nb", "v"}}, "output name"},
		{"name with heredoc marker", zeros(), []Output{{"a<<b", "v"}}, "output name"},
		{"name with equals", zeros(), []Output{{"a=b", "v"}}, "output name"},
		{"empty name", zeros(), []Output{{"", "v"}}, "output name"},
		{"random source fails", bytes.NewReader(nil), []Output{{"a", "v"}}, "generate delimiter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteOutputs(&buf, tt.random, tt.outs)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("WriteOutputs = %v, want error containing %q", err, tt.wantErr)
			}
			if buf.Len() != 0 {
				t.Errorf("a refused batch wrote %q", buf.String())
			}
		})
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteOutputsWriteError(t *testing.T) {
	err := WriteOutputs(failingWriter{}, rand.Reader, []Output{{"a", "b"}})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("WriteOutputs = %v, want the write error", err)
	}
}

func TestParseOutputFileMatchesRunner(t *testing.T) {
	// The parser itself must behave like the runner, or the tests above
	// prove nothing: a fixed-delimiter writer is injectable through it.
	fixed := "verdict<<EOF\nx\nEOF\nexit-code<<EOF\n0\nEOF\n"
	got, err := parseOutputFile(fixed)
	if err != nil {
		t.Fatal(err)
	}
	if got["exit-code"] != "0" || got["verdict"] != "x" {
		t.Errorf("parsed %q", got)
	}
	if _, err := parseOutputFile("a<<EOF\nnever closed\n"); err == nil {
		t.Error("an unclosed heredoc was accepted")
	}
	if got, _ := parseOutputFile("a=b<<c\n"); got["a"] != "b<<c" {
		t.Errorf("'=' before '<<' must win: %q", got)
	}
}
