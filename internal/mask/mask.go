// Package mask hides secret values in what warden prints and writes.
//
// warden hands secrets to servers: --env and --header values, and the
// variables a client config expands (${API_TOKEN}). A server can echo them
// back — in its stderr, which warden quotes in error lines, in a tool name,
// in an error message — and warden itself quotes launch argv in errors
// ("command not found: '…'"). A Set collects every such value as it becomes
// known, and its Writer and String replace each occurrence, in the forms
// warden's output spells strings in (as is, JSON- and Go-escaped, URL
// escaped), by Placeholder before it leaves the process.
package mask

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Placeholder replaces a secret.
const Placeholder = "***"

// MinLength is the shortest value a Set masks, in bytes. A shorter value
// ("1", "on", "dev") cannot be told from ordinary words, and masking it
// would garble every report without hiding anything worth hiding.
const MinLength = 4

// maxLineBuffer bounds what a Writer holds back while it waits for the end
// of a line.
const maxLineBuffer = 64 << 10

// Set is a set of secret values. The zero value is not usable; a nil *Set
// masks nothing. It is safe for concurrent use.
type Set struct {
	mu sync.RWMutex
	// forms are every spelling of every secret, longest first so that a
	// secret containing another is replaced whole.
	forms []string
	seen  map[string]bool
	// longest is the length of the longest form.
	longest int
}

// New returns an empty Set.
func New() *Set { return &Set{seen: map[string]bool{}} }

// Add records secret values. Values shorter than MinLength are ignored;
// a value spanning several lines is recorded line by line too, since
// output is written and masked a line at a time.
func (s *Set) Add(values ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		for _, part := range parts(v) {
			for _, f := range spellings(part) {
				if len(f) < MinLength || s.seen[f] {
					continue
				}
				s.seen[f] = true
				s.forms = append(s.forms, f)
				s.longest = max(s.longest, len(f))
			}
		}
	}
	sort.SliceStable(s.forms, func(i, j int) bool { return len(s.forms[i]) > len(s.forms[j]) })
}

// Len is the number of spellings recorded.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.forms)
}

// Values returns the recorded spellings, longest first: what a caller
// registers elsewhere (the runner's ::add-mask::) or screens for.
func (s *Set) Values() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]string(nil), s.forms...)
}

// parts is v and, for a value of several lines, each of its lines.
func parts(v string) []string {
	out := []string{v}
	if strings.ContainsAny(v, "\r\n") {
		for _, line := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' }) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// spellings are the forms v takes in warden's output: as is, inside a
// JSON string, inside a Go-quoted string (%q), and URL-escaped.
func spellings(v string) []string {
	out := []string{v}
	if b, err := json.Marshal(v); err == nil {
		out = append(out, string(b[1:len(b)-1]))
	}
	q := strconv.Quote(v)
	out = append(out, q[1:len(q)-1], url.QueryEscape(v), url.PathEscape(v))
	return out
}

// String returns text with every recorded secret replaced by Placeholder.
func (s *Set) String(text string) string {
	if s == nil {
		return text
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if strings.Contains(text, f) {
			text = strings.ReplaceAll(text, f, Placeholder)
		}
	}
	return text
}

// Bytes is String for a byte slice; it returns data itself when nothing
// in it is secret.
func (s *Set) Bytes(data []byte) []byte {
	if s == nil {
		return data
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if bytes.Contains(data, []byte(f)) {
			data = bytes.ReplaceAll(data, []byte(f), []byte(Placeholder))
		}
	}
	return data
}

// Contains reports whether text holds a recorded secret. Callers that
// refuse such text name where it was, never what.
func (s *Set) Contains(text string) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.forms {
		if strings.Contains(text, f) {
			return true
		}
	}
	return false
}

// Writer returns a writer that masks what it passes on to w. It holds back
// an unfinished line (at most 64 KiB of it) so that a secret split across
// two writes is still masked; Flush passes on what is held back. Secrets
// added to the Set later apply to everything not yet passed on.
func (s *Set) Writer(w io.Writer) *Writer { return &Writer{set: s, out: w} }

// Writer masks secrets line by line; see Set.Writer.
type Writer struct {
	mu  sync.Mutex
	set *Set
	out io.Writer
	buf []byte
}

// Write masks every whole line of p (and of what was held back) and passes
// it on; the unfinished rest is held back.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 && w.set.Len() == 0 {
		// Nothing to mask yet: pass whole lines on without a copy.
		cut := bytes.LastIndexByte(p, '\n') + 1
		if cut > 0 {
			if _, err := w.out.Write(p[:cut]); err != nil {
				return 0, err
			}
		}
		w.buf = append(w.buf, p[cut:]...)
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	cut := bytes.LastIndexByte(w.buf, '\n') + 1
	if cut == 0 && len(w.buf) > maxLineBuffer {
		// A very long unfinished line: pass on all but a tail that could
		// hold the start of a secret.
		cut = max(len(w.buf)-w.set.longestForm(), 0)
	}
	if cut == 0 {
		return len(p), nil
	}
	if _, err := w.out.Write(w.set.Bytes(w.buf[:cut])); err != nil {
		return 0, err
	}
	w.buf = append(w.buf[:0], w.buf[cut:]...)
	return len(p), nil
}

// Flush passes on, masked, what Write held back.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.out.Write(w.set.Bytes(w.buf))
	w.buf = w.buf[:0]
	return err
}

func (s *Set) longestForm() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.longest
}

// HeaderParts returns what of an HTTP header value ("Bearer ${TOKEN}",
// "Basic dXNlcjpwYXNz") is secret: the value whole, each of its words but
// the scheme words ("Bearer", "Basic", "Token", "Digest") and references,
// and each ${NAME} in it as getenv reads it.
func HeaderParts(value string, getenv func(string) string) []string {
	value = strings.Trim(value, " \t")
	out := []string{value}
	for _, word := range strings.Fields(value) {
		switch strings.ToLower(word) {
		case "bearer", "basic", "token", "digest":
			continue
		}
		if !strings.Contains(word, "${") {
			out = append(out, word)
		}
	}
	for rest := value; ; {
		i := strings.Index(rest, "${")
		if i < 0 {
			return out
		}
		end := strings.IndexByte(rest[i:], '}')
		if end < 0 {
			return out
		}
		out = append(out, getenv(rest[i+2:i+end]))
		rest = rest[i+end+1:]
	}
}

// EnvValue returns the value an --env entry hands the server: VALUE of
// "NAME=VALUE", or what getenv reads for a bare "NAME".
func EnvValue(entry string, getenv func(string) string) string {
	name, value, ok := strings.Cut(entry, "=")
	if !ok {
		return getenv(name)
	}
	return value
}
