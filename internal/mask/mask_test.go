package mask

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestStringMasksEverySpelling(t *testing.T) {
	s := New()
	s.Add(`sk-live-a"b\c d`, "abc", "")
	cases := []struct{ in, want string }{
		{`token sk-live-a"b\c d here`, "token *** here"},
		{fmt.Sprintf("%q", `sk-live-a"b\c d`), `"***"`},
		{mustJSON(`sk-live-a"b\c d`), `"***"`},
		{"q=sk-live-a%22b%5Cc+d", "q=***"},
		{"/sk-live-a%22b%5Cc%20d", "/***"},
		// Values under MinLength are not masked.
		{"abc abc", "abc abc"},
	}
	for _, c := range cases {
		if got := s.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := string(s.Bytes([]byte(c.in))); got != c.want {
			t.Errorf("Bytes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLongerSecretReplacedWhole(t *testing.T) {
	s := New()
	s.Add("secret", "secret-and-more")
	if got := s.String("x secret-and-more y secret"); got != "x *** y ***" {
		t.Fatalf("got %q", got)
	}
}

func TestMultiLineSecretMaskedByLine(t *testing.T) {
	s := New()
	s.Add("-----BEGIN KEY-----\nMIIEvQIBADANBg\n-----END KEY-----")
	var out bytes.Buffer
	w := s.Writer(&out)
	fmt.Fprintf(w, "server said: MIIEvQIBADANBg\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "MIIEvQ") {
		t.Fatalf("line of a multi-line secret leaked: %q", out.String())
	}
}

func TestWriterMasksAcrossWrites(t *testing.T) {
	s := New()
	var out bytes.Buffer
	w := s.Writer(&out)
	// Added after the writer was made, before the text is passed on.
	s.Add("hunter2-token")
	for _, piece := range []string{"error: command not found: 'hun", "ter2-to", "ken' (not found)\nnext", " line"} {
		if _, err := w.Write([]byte(piece)); err != nil {
			t.Fatal(err)
		}
	}
	if got := out.String(); got != "error: command not found: '***' (not found)\n" {
		t.Fatalf("before Flush: %q", got)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasSuffix(got, "next line") {
		t.Fatalf("after Flush: %q", got)
	}
}

func TestWriterLongLineWithoutNewline(t *testing.T) {
	s := New()
	s.Add("the-secret-value")
	var out bytes.Buffer
	w := s.Writer(&out)
	long := strings.Repeat("x", maxLineBuffer) + "the-secret-value" + strings.Repeat("y", 100)
	// Written in small pieces, so that a cut could fall inside the secret.
	for i := 0; i < len(long); i += 7 {
		if _, err := w.Write([]byte(long[i:min(i+7, len(long))])); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "secret") || !strings.Contains(out.String(), "***") {
		t.Fatalf("secret not masked in a long line")
	}
	if len(w.buf) != 0 {
		t.Fatalf("buffer not drained")
	}
}

func TestNilSetMasksNothing(t *testing.T) {
	var s *Set
	s.Add("whatever-secret")
	if s.String("whatever-secret") != "whatever-secret" || s.Len() != 0 || s.Contains("x") {
		t.Fatal("nil set changed text")
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func FuzzWriterNeverLeaks(f *testing.F) {
	f.Add("secret-value", "prefix secret-value suffix\n", 3)
	f.Fuzz(func(t *testing.T, secret, text string, chunk int) {
		if len(secret) < MinLength || strings.ContainsAny(secret, "\r\n") || chunk <= 0 || chunk > 64 {
			return
		}
		s := New()
		s.Add(secret)
		var out bytes.Buffer
		w := s.Writer(&out)
		for i := 0; i < len(text); i += chunk {
			_, _ = w.Write([]byte(text[i:min(i+chunk, len(text))]))
		}
		_ = w.Flush()
		if strings.Contains(out.String(), secret) && !strings.Contains(s.String(text), secret) {
			t.Fatalf("writer leaked %q where String did not", secret)
		}
	})
}

func TestHeaderPartsAndEnvValue(t *testing.T) {
	env := map[string]string{"TOKEN": "tok-123456", "K": "kv-value"}
	getenv := func(k string) string { return env[k] }
	got := HeaderParts(" Bearer ${TOKEN} ", getenv)
	want := []string{"Bearer ${TOKEN}", "tok-123456"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("HeaderParts(reference) = %q, want %q", got, want)
	}
	got = HeaderParts("Basic dXNlcjpwYXNz", getenv)
	want = []string{"Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("HeaderParts(literal) = %q, want %q", got, want)
	}
	if EnvValue("K", getenv) != "kv-value" || EnvValue("K=given=x", getenv) != "given=x" {
		t.Error("EnvValue")
	}
}

func TestWriterPassesPlainTextUnchanged(t *testing.T) {
	var out bytes.Buffer
	w := New().Writer(&out)
	fmt.Fprint(w, "a line\nand half")
	if out.String() != "a line\n" {
		t.Fatalf("before Flush: %q", out.String())
	}
	_ = w.Flush()
	if out.String() != "a line\nand half" {
		t.Fatalf("after Flush: %q", out.String())
	}
}
