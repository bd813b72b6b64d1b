package pyfmt

import "testing"

// TestAppendASCIIString holds the ensure_ascii=True rendering to the text
// CPython's json.dumps gives for the same str.
func TestAppendASCIIString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"npm:@scope/pkg@1.2.3", `"npm:@scope/pkg@1.2.3"`},
		{"a\"b\\c", `"a\"b\\c"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x1f\x7f", `"\u0000\u001f\u007f"`},
		{"é", `"\u00e9"`},
		{"€", `"\u20ac"`},
		{"😀", `"\ud83d\ude00"`},
		{"\xff", `"\ufffd"`},
		{"/", `"/"`},
	} {
		if got := string(AppendASCIIString(nil, tc.in)); got != tc.want {
			t.Errorf("AppendASCIIString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
