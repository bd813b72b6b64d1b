package capture

import (
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

func TestTailRing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		writes []string
		want   string
	}{
		{"empty", nil, ""},
		{"short", []string{"abc", "def"}, "abcdef"},
		{"exactly full", []string{strings.Repeat("a", stderrTailBytes)}, strings.Repeat("a", stderrTailBytes)},
		{"wraps", []string{strings.Repeat("a", stderrTailBytes-2), "bcde"}, strings.Repeat("a", stderrTailBytes-4) + "bcde"},
		{"one huge write", []string{"x" + strings.Repeat("b", stderrTailBytes)}, strings.Repeat("b", stderrTailBytes)},
		{"many writes", []string{strings.Repeat("0123456789", 1000), "END"}, strings.Repeat("0123456789", 1000)[10000-stderrTailBytes+3:] + "END"},
		// A cut multi-byte character at the start is dropped, not escaped.
		{"cut rune", []string{"é" + strings.Repeat("c", stderrTailBytes-1)}, strings.Repeat("c", stderrTailBytes-1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r tailRing
			for _, w := range tc.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if got := r.tail(); got != tc.want {
				t.Errorf("tail = %q (%d bytes), want %d bytes", elide(got, 40), len(got), len(tc.want))
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		max  int
		want string
	}{
		{"plain text", 100, "plain text"},
		{"two\nlines\r\n", 100, `two\nlines\r\n`},
		{"esc\x1b[31mred", 100, `esc\x1b[31mred`},
		{"bidi\u202eevil", 100, `bidi\u202eevil`},
		{"sep\u2028x", 100, `sep\u2028x`},
		{"bad\xffutf8", 100, `bad\xffutf8`},
		{`back\slash`, 100, `back\\slash`},
		{"héllo wörld", 100, "héllo wörld"},
		{"0123456789", 5, "01…89"},
	}
	for _, tc := range cases {
		if got := oneLine(tc.in, tc.max); got != tc.want {
			t.Errorf("oneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := quoteName(strings.Repeat("n", 500)); len([]rune(got)) != 82 {
		t.Errorf("quoteName does not cap: %d runes", len([]rune(got)))
	}
}

// TestParseHeaders is not parallel: it sets environment variables.
func TestParseHeaders(t *testing.T) {
	t.Setenv("WARDEN_TEST_TOKEN", "abc")
	t.Setenv("WARDEN_TEST_NEWLINE", "a\r\nInjected: yes")
	cases := []struct {
		in      []string
		want    string
		wantErr string
	}{
		{in: []string{"Authorization: Bearer ${WARDEN_TEST_TOKEN}"}, want: "Authorization=Bearer abc"},
		{in: []string{"x-api-key:${WARDEN_TEST_TOKEN}${WARDEN_TEST_TOKEN}", "X-Plain:  $HOME  "}, want: "X-Api-Key=abcabc;X-Plain=$HOME"},
		{in: []string{"X-Empty:"}, want: "X-Empty="},
		{in: []string{"NoColon"}, wantErr: `invalid header "NoColon"`},
		{in: []string{"Bad Name: v"}, wantErr: `invalid header "Bad Name"`},
		{in: []string{"Accept: */*"}, wantErr: "set by warden itself"},
		{in: []string{"mcp-session-id: x"}, wantErr: "set by warden itself"},
		{in: []string{"X-T: ${WARDEN_TEST_UNSET_VAR}"}, wantErr: "environment variable WARDEN_TEST_UNSET_VAR is not set"},
		{in: []string{"X-T: ${oops"}, wantErr: "unterminated ${"},
		{in: []string{"X-T: ${1BAD}"}, wantErr: "invalid variable reference ${1BAD}"},
		{in: []string{"X-T: ${WARDEN_TEST_NEWLINE}"}, wantErr: "control character"},
	}
	for _, tc := range cases {
		got, err := parseHeaders(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseHeaders(%q) err = %v, want %q", tc.in, err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "abc") {
				t.Errorf("error leaks a secret value: %v", err)
			}
			continue
		}
		var parts []string
		for _, h := range got {
			parts = append(parts, h[0]+"="+h[1])
		}
		if err != nil || strings.Join(parts, ";") != tc.want {
			t.Errorf("parseHeaders(%q) = %q, %v; want %q", tc.in, parts, err, tc.want)
		}
	}
}

func parse(t *testing.T, s string) *jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(s), jsonv.Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		want    string // kind:id:method or error fragment
		wantErr bool
	}{
		{in: `{"jsonrpc":"2.0","method":"notifications/message"}`, want: "notification::notifications/message"},
		{in: `{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`, want: `request:"srv-1":ping`},
		{in: `{"result":{},"id":3,"jsonrpc":"2.0"}`, want: "response:3:"},
		{in: `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"x"}}`, want: `response:3:error -32601 ("x")`},
		{in: `[{"jsonrpc":"2.0","id":1,"result":{}}]`, wantErr: true},
		{in: `{"jsonrpc":"1.0","id":1,"result":{}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":1}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":1,"error":{"code":1.0}}`, wantErr: true},
		// JSON-RPC requires a string message; its text is never read.
		{in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":null}}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":1,"error":"Method not found"}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"","data":[1]}}`, want: "response:1:error -32601"},
		{in: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, wantErr: true},
		{in: `{"jsonrpc":"2.0","method":7}`, wantErr: true},
		{in: `{"jsonrpc":"2.0"}`, wantErr: true},
	}
	for _, tc := range cases {
		m, err := classify(parse(t, tc.in))
		if tc.wantErr {
			if err == nil {
				t.Errorf("classify(%s) accepted", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("classify(%s): %v", tc.in, err)
			continue
		}
		kind := map[msgKind]string{kindRequest: "request", kindNotification: "notification", kindResponse: "response"}[m.kind]
		id := ""
		if m.id != nil {
			id = m.id.Compact()
		}
		got := kind + ":" + id + ":" + m.method
		if m.err != nil {
			got += m.err.Error()[len("server answered JSON-RPC "):]
		}
		if got != tc.want {
			t.Errorf("classify(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func FuzzClassify(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","method":"ping"}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jsonv.Parse(data, jsonv.Options{})
		if err != nil {
			return
		}
		m, err := classify(v)
		if err != nil {
			return
		}
		// Whatever is accepted must be answerable or matchable without
		// touching a nil id.
		if (m.kind == kindRequest || m.kind == kindResponse) && m.id == nil {
			t.Fatalf("classified %s with a nil id", data)
		}
		if m.kind == kindRequest && m.id.Kind != jsonv.String && m.id.Kind != jsonv.Int {
			t.Fatalf("request id of kind %s accepted", m.id.Kind)
		}
	})
}

func TestItemValidation(t *testing.T) {
	t.Parallel()
	at := itemAt{list: "x", page: 1, index: 0}
	cases := []struct {
		kind    string
		in      string
		want    string // rendered entry, or the error fragment
		wantErr bool
	}{
		{kind: "tool", in: `{"name":"t","inputSchema":{"type":"object"},"title":null,"x-vendor":1}`, want: `t in={"type":"object"}`},
		{kind: "tool", in: `{"name":"t"}`, want: "inputSchema is missing or not an object", wantErr: true},
		{kind: "tool", in: `{"name":"t","inputSchema":[]}`, want: "inputSchema is missing or not an object", wantErr: true},
		{kind: "tool", in: `{"name":"t","inputSchema":{},"title":5}`, want: "title is an integer, not a string", wantErr: true},
		{kind: "tool", in: `{"name":"t","inputSchema":{},"_meta":[]}`, want: "_meta is an array, not an object", wantErr: true},
		{kind: "tool", in: `{"name":"t","inputSchema":{},"outputSchema":true}`, want: "outputSchema is a boolean", wantErr: true},
		{kind: "resource", in: `{"uri":"r://1","name":"n","description":null,"mimeType":"text/plain","size":3}`, want: `r://1 name="n" desc=null mime="text/plain"`},
		{kind: "resource", in: `{"uri":"r://1"}`, want: `r://1 name=<absent> desc=<absent> mime=<absent>`},
		{kind: "resource", in: `{"uri":""}`, want: "uri is missing, empty or not a string", wantErr: true},
		{kind: "resource", in: `{"uri":1}`, want: "uri is missing, empty or not a string", wantErr: true},
		{kind: "resource", in: `{"uri":"r://1","name":null}`, want: "name is null, not a string", wantErr: true},
		{kind: "resource", in: `{"uri":"r://1","mimeType":7}`, want: "mimeType is an integer", wantErr: true},
		{kind: "prompt", in: `{"name":"p"}`, want: `p desc=<absent> args=<absent>`},
		{kind: "prompt", in: `{"name":"p","arguments":null}`, want: `p desc=<absent> args=null`},
		{kind: "prompt", in: `{"name":"p","description":"d","arguments":[{"x":1.0,"required":false,"name":"a","title":null,"y":[null]},{"name":"b","description":"B"}]}`,
			want: `p desc="d" args=[{"name":"a","description":null,"required":false,"x":1.0,"y":[null]},{"name":"b","description":"B","required":null}]`},
		{kind: "prompt", in: `{"name":"p","arguments":{}}`, want: "arguments is an object, not an array", wantErr: true},
		{kind: "prompt", in: `{"name":"p","arguments":[{"description":"no name"}]}`, want: "arguments[0]: name is missing", wantErr: true},
		{kind: "prompt", in: `{"name":"p","arguments":[{"name":"a","required":"yes"}]}`, want: "arguments[0]: required is a string, not a boolean", wantErr: true},
		{kind: "prompt", in: `{"description":"d"}`, want: "prompt name is missing", wantErr: true},
	}
	for _, tc := range cases {
		v := parse(t, tc.in)
		var got string
		var err error
		switch tc.kind {
		case "tool":
			tl, e := toolFromWire(v, at)
			err = e
			got = tl.Name + " in=" + compact(tl.InputSchema)
		case "resource":
			r, e := resourceFromWire(v, at)
			err = e
			got = r.URI + " name=" + compact(r.Name) + " desc=" + compact(r.Description) + " mime=" + compact(r.MimeType)
		case "prompt":
			p, e := promptFromWire(v, at)
			err = e
			got = p.Name + " desc=" + compact(p.Description) + " args=" + compact(p.Arguments)
		}
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: err = %v, want %q", tc.kind, tc.in, err, tc.want)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %s = %s, %v\nwant %s", tc.kind, tc.in, got, err, tc.want)
		}
	}
}

// compact renders a possibly absent raw value for comparisons.
func compact(v *jsonv.Value) string {
	if v == nil {
		return "<absent>"
	}
	return v.Compact()
}
