package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// chunkReader returns its data in reads of the given sizes (cycling), so
// that tests can split lines and CRLF pairs across reads.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.sizes) > 0 {
		n = max(1, c.sizes[c.i%len(c.sizes)])
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// readLines drains a lineReader, returning the lines and the final error.
func readLines(lr *lineReader) ([]string, error) {
	var out []string
	for {
		line, err := lr.next()
		if err != nil {
			return out, err
		}
		out = append(out, string(line))
	}
}

func TestLineReader(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		in      string
		max     int
		anyEOL  bool
		sizes   []int
		want    []string
		wantErr string // "" means io.EOF
	}{
		{name: "lines", in: "a\nbc\n\n", max: 10, want: []string{"a", "bc", ""}},
		// A cut-off message in LF framing is an error, not a clean end:
		// a stdio server that dies mid-reply has not simply exited.
		{name: "unterminated tail refused", in: "a\nbc", max: 10, want: []string{"a"}, wantErr: "the stream ended inside a message (2 bytes after the last newline)"},
		{name: "unterminated blank tail", in: "a\n \t\r", max: 10, want: []string{"a"}},
		{name: "unterminated tail dropped in any-EOL mode", in: "a\nbc", max: 10, anyEOL: true, want: []string{"a"}},
		{name: "CR is data in LF mode", in: "a\r\nb\rc\n", max: 10, want: []string{"a\r", "b\rc"}},
		{name: "any EOL", in: "a\r\nb\rc\n\r\n", max: 10, anyEOL: true, want: []string{"a", "b", "c", ""}},
		{name: "CRLF split across reads", in: "a\r\nb\r\n", max: 10, anyEOL: true, sizes: []int{2, 1}, want: []string{"a", "b"}},
		{name: "lines spanning reads", in: "hello\nworld\n", max: 10, sizes: []int{1}, want: []string{"hello", "world"}},
		{name: "exactly max", in: "12345\n", max: 5, want: []string{"12345"}},
		{name: "over max", in: "ok\n123456\nnever\n", max: 5, want: []string{"ok"}, wantErr: "a line exceeds the limit of 5 bytes"},
		{name: "over max across reads", in: "123456789\n", max: 5, sizes: []int{2}, wantErr: "a line exceeds the limit of 5 bytes"},
		{name: "unterminated over max", in: "ok\n123456", max: 5, want: []string{"ok"}, wantErr: "a line exceeds the limit of 5 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lr := newLineReader(&chunkReader{data: []byte(tc.in), sizes: tc.sizes}, tc.max, tc.anyEOL, "a line")
			got, err := readLines(lr)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("lines = %q, want %q", got, tc.want)
			}
			switch {
			case tc.wantErr == "" && err != io.EOF:
				t.Errorf("err = %v, want io.EOF", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			// Errors are sticky.
			if _, again := lr.next(); again != err {
				t.Errorf("second error = %v, want the same %v", again, err)
			}
		})
	}
}

func TestLineReaderStopsReadingAtTheBound(t *testing.T) {
	t.Parallel()
	// An endless line: the reader must give up after about max bytes.
	src := &countingSource{}
	lr := newLineReader(src, 1<<20, false, "a message")
	if _, err := lr.next(); !errors.As(err, new(*limitError)) {
		t.Fatalf("err = %v, want a limit error", err)
	}
	if src.n > 1<<20+readChunk {
		t.Errorf("read %d bytes for a 1 MiB bound", src.n)
	}
	if c := cap(lr.acc); c > 1<<20 {
		t.Errorf("line buffer grew to %d bytes", c)
	}
}

// countingSource is an endless stream of 'x' that counts what it served.
type countingSource struct{ n int }

func (c *countingSource) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	c.n += len(p)
	return len(p), nil
}

func TestBudget(t *testing.T) {
	t.Parallel()
	b := &budget{limit: 10}
	lr := newLineReader(&countingReader{r: strings.NewReader("12345\n67890\nabc\n"), b: b}, 100, false, "x")
	got, err := readLines(lr)
	// All three lines arrive in one read of 16 bytes, past the budget: the
	// lines already read are still delivered, then the budget error.
	var le *limitError
	if !errors.As(err, &le) || le.limit != 10 || len(got) != 3 {
		t.Errorf("lines %q, err %v", got, err)
	}
}

// naiveLines splits data the slow, obvious way: the oracle for the fuzz
// target. It returns the complete lines and the unterminated tail.
func naiveLines(data []byte, anyEOL bool) (lines []string, tail []byte) {
	for {
		i := bytes.IndexByte(data, '\n')
		if anyEOL {
			i = bytes.IndexAny(data, "\r\n")
		}
		if i < 0 {
			return lines, data
		}
		lines = append(lines, string(data[:i]))
		skip := 1
		if anyEOL && data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			skip = 2
		}
		data = data[i+skip:]
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\r\nc\rd"), uint8(3), uint8(2), false)
	f.Add([]byte("\r\n\r\r\n\n"), uint8(1), uint8(1), true)
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n"), uint8(255), uint8(7), false)
	f.Fuzz(func(t *testing.T, data []byte, maxLen, chunk uint8, anyEOL bool) {
		max := int(maxLen)
		lr := newLineReader(&chunkReader{data: bytes.Clone(data), sizes: []int{int(chunk), int(chunk)/2 + 1}}, max, anyEOL, "a line")
		got, err := readLines(lr)

		lines, tail := naiveLines(data, anyEOL)
		var want []string
		tooLong := false
		for _, l := range lines {
			if len(l) > max {
				tooLong = true
				break
			}
			want = append(want, l)
		}
		if !tooLong && len(tail) > max {
			tooLong = true
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("lines = %q, want %q", got, want)
		}
		var le *limitError
		var te *truncatedError
		cut := !anyEOL && !isBlank(tail)
		switch {
		case tooLong && !errors.As(err, &le):
			t.Fatalf("err = %v, want a limit error", err)
		case !tooLong && cut && (!errors.As(err, &te) || te.n != len(tail)):
			t.Fatalf("err = %v, want a truncation of %d bytes", err, len(tail))
		case !tooLong && !cut && err != io.EOF:
			t.Fatalf("err = %v, want io.EOF", err)
		}
	})
}

func TestSSEReader(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		in      string
		max     int
		want    []string // "type|id|data"
		wantErr string   // "" means io.EOF
	}{
		{name: "basic", in: "event: message\ndata: {}\n\n", want: []string{"message||{}"}},
		{name: "default type and multi-line data", in: "data: a\ndata:b\n\n", want: []string{"message||a\nb"}},
		{name: "CRLF and CR", in: "data: x\r\n\r\ndata: y\r\r", want: []string{"message||x", "message||y"}},
		{name: "comment and unknown field", in: ": hi\nfoo: bar\nretry: 10\ndata: z\n\n", want: []string{"message||z"}},
		{name: "no data is not dispatched", in: "event: endpoint\n\ndata: d\n\n", want: []string{"message||d"}},
		{name: "empty data is dispatched", in: "id: 7\ndata:\n\n", want: []string{"message|7|"}},
		{name: "id persists", in: "id: 1\ndata: a\n\ndata: b\n\n", want: []string{"message|1|a", "message|1|b"}},
		{name: "id with NUL ignored", in: "id: 1\n\nid: a\x00b\ndata: c\n\n", want: []string{"message|1|c"}},
		{name: "field without colon", in: "data\n\n", want: []string{"message||"}},
		{name: "only one space stripped", in: "data:  two\n\n", want: []string{"message|| two"}},
		{name: "leading BOM", in: "\xEF\xBB\xBFdata: a\n\n", want: []string{"message||a"}},
		{name: "unterminated event discarded", in: "data: a\n\ndata: b\n", want: []string{"message||a"}},
		{name: "named event", in: "event: endpoint\ndata: /messages?s=1\n\n", want: []string{"endpoint||/messages?s=1"}},
		{name: "data at the bound", in: "data: 12345\n\n", max: 5, want: []string{"message||12345"}},
		{name: "data over the bound", in: "data: 123\ndata: 45\n\n", max: 5, wantErr: "server-sent event data exceeds the limit of 5 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			max := tc.max
			if max == 0 {
				max = 1 << 10
			}
			got, err := readEvents(newSSEReader(&chunkReader{data: []byte(tc.in), sizes: []int{3}}, max))
			if strings.Join(got, "\x1f") != strings.Join(tc.want, "\x1f") {
				t.Errorf("events = %q, want %q", got, tc.want)
			}
			switch {
			case tc.wantErr == "" && err != io.EOF:
				t.Errorf("err = %v, want io.EOF", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func readEvents(r *sseReader) ([]string, error) {
	var out []string
	for {
		ev, err := r.next()
		if err != nil {
			return out, err
		}
		out = append(out, ev.typ+"|"+ev.id+"|"+string(ev.data))
	}
}

// naiveSSE interprets a whole event stream at once, following the WHATWG
// steps literally: the oracle for FuzzSSEReader.
func naiveSSE(stream []byte) []string {
	stream = bytes.TrimPrefix(stream, []byte("\xEF\xBB\xBF"))
	lines, _ := naiveLines(stream, true)
	var (
		out           []string
		typ, data, id string
	)
	for _, line := range lines {
		switch {
		case line == "":
			if data == "" {
				typ = ""
				continue
			}
			if typ == "" {
				typ = "message"
			}
			out = append(out, typ+"|"+id+"|"+strings.TrimSuffix(data, "\n"))
			typ, data = "", ""
		case line[0] == ':':
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				typ = value
			case "data":
				data += value + "\n"
			case "id":
				if !strings.Contains(value, "\x00") {
					id = value
				}
			}
		}
	}
	return out
}

func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("event: message\r\ndata: {\"a\":1}\r\n\r\n"), uint8(4), uint8(64))
	f.Add([]byte("\xEF\xBB\xBFid: 1\ndata\n\n: c\rdata: x\r\r"), uint8(1), uint8(3))
	f.Add([]byte("data: a\ndata: b\n\nevent: e\n\n"), uint8(2), uint8(255))
	f.Fuzz(func(t *testing.T, stream []byte, chunk, maxLen uint8) {
		// With a bound far above the input, the reader must agree with
		// the oracle exactly.
		got, err := readEvents(newSSEReader(&chunkReader{data: bytes.Clone(stream), sizes: []int{int(chunk)}}, 1<<20))
		if err != io.EOF {
			t.Fatalf("err = %v, want io.EOF", err)
		}
		want := naiveSSE(stream)
		if strings.Join(got, "\x1f") != strings.Join(want, "\x1f") || len(got) != len(want) {
			t.Fatalf("events = %q, want %q", got, want)
		}
		// With a small bound it must deliver a prefix of those events,
		// none over the bound, and stop with a limit error if at all.
		max := int(maxLen)
		r := newSSEReader(&chunkReader{data: bytes.Clone(stream), sizes: []int{int(chunk)}}, max)
		for i := 0; ; i++ {
			ev, err := r.next()
			if err != nil {
				if err != io.EOF && !errors.As(err, new(*limitError)) {
					t.Fatalf("err = %v", err)
				}
				break
			}
			if len(ev.data) > max {
				t.Fatalf("event data of %d bytes over the bound %d", len(ev.data), max)
			}
			if i >= len(want) || ev.typ+"|"+ev.id+"|"+string(ev.data) != want[i] {
				t.Fatalf("event %d = %q, not the oracle's", i, ev.data)
			}
		}
	})
}

func TestSSERetry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want time.Duration
	}{
		{"retry: 1500\ndata: x\n\n", 1500 * time.Millisecond},
		{"retry: +15\ndata: x\n\n", 0},
		{"retry: 1.5\ndata: x\n\n", 0},
		{"retry: 20\nretry: oops\ndata: x\n\n", 20 * time.Millisecond},
	}
	for _, tc := range cases {
		r := newSSEReader(strings.NewReader(tc.in), 100)
		if _, err := r.next(); err != nil {
			t.Fatal(err)
		}
		if r.retry != tc.want {
			t.Errorf("%q: retry = %v, want %v", tc.in, r.retry, tc.want)
		}
	}
}
