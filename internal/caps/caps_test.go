package caps

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/jsonv"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		// The reference-behaviour §2.1 examples.
		{"HTTPServer", []string{"http", "server"}},
		{"getURLFor", []string{"get", "url", "for"}},
		{"READfile", []string{"rea", "dfile"}},
		{"ABCd", []string{"ab", "cd"}},
		{"file2Path", []string{"file2", "path"}},
		{"v2Api", []string{"v2", "api"}},
		{"9Lives", []string{"9", "lives"}},
		{"a1B2c3D", []string{"a1", "b2c3", "d"}},
		{"__init__", []string{"init"}},
		{"fooÄbc", []string{"fooäbc"}},
		// Python lowers U+0130 to "i" + U+0307, so this is not "list".
		{"lİst", []string{"li\u0307st"}},
		{"İ", []string{"i\u0307"}},
		// KELVIN SIGN lowers to ASCII k in both languages.
		{"\u212aEY", []string{"key"}},
		// Python's \s includes the information separators U+001C-001F.
		{"a\x1cb", []string{"a", "b"}},
		{"a\x1db", []string{"a", "b"}},
		{"a\x1eb", []string{"a", "b"}},
		{"a\x1fb", []string{"a", "b"}},
		{"a\u0085b", []string{"a", "b"}},
		{"a\u00a0b", []string{"a", "b"}},
		{"a\u1680b", []string{"a", "b"}},
		{"a\u2000b", []string{"a", "b"}},
		{"a\u200ab", []string{"a", "b"}},
		{"a\u2028B", []string{"a", "b"}},
		{"a\u2029b", []string{"a", "b"}},
		{"a\u202fb", []string{"a", "b"}},
		{"a\u205fb", []string{"a", "b"}},
		{"a\u3000b", []string{"a", "b"}},
		{"get\tURL", []string{"get", "url"}},
		{"a\nb\rc\vd\fe", []string{"a", "b", "c", "d", "e"}},
		// Zero-width space is not whitespace to Python.
		{"a\u200bb", []string{"a\u200bb"}},
		// Final sigma is context dependent in Python's str.lower.
		{"ΣΑΣ", []string{"σας"}},
		{"ΑΣ_ΣΑ", []string{"ας", "σα"}},
		{"aΣ'", []string{"aς'"}},
		{"ǅx", []string{"ǆx"}},
		{"x.y-z_w", []string{"x", "y", "z", "w"}},
		{"run_shell_command", []string{"run", "shell", "command"}},
		{"runShellCommand", []string{"run", "shell", "command"}},
		{"HTTP2Server", []string{"http2", "server"}},
		{"AbCD", []string{"ab", "cd"}},
		{"ABcD", []string{"a", "bc", "d"}},
		{"ABC1d", []string{"abc1d"}},
		{"A1B", []string{"a1", "b"}},
		{"ÄBc", []string{"äbc"}},
		{"aÄB", []string{"aäb"}},
		{"AB", []string{"ab"}},
		{"A", []string{"a"}},
		{"aB", []string{"a", "b"}},
		{"shelter", []string{"shelter"}},
		{"", nil},
		{"_", nil},
		{"  ", nil},
		{"-._ \t", nil},
	}
	for _, tc := range tests {
		got := Tokenize(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLower(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ABC", "abc"},
		{"İ", "i\u0307"},
		{"\u212a", "k"},
		{"Σ", "σ"},   // no cased letter before it
		{"AΣ", "aς"}, // word-final
		{"AΣB", "aσb"},
		{"AΣ.", "aς."},         // '.' is case-ignorable, then the end
		{"A'Σ", "a'ς"},         // case-ignorable between the letter and sigma
		{"AΣ'B", "aσ'b"},       // a cased letter after the ignorable run
		{"AΣ1", "aς1"},         // a digit is not cased
		{"ΣΣ", "σς"},           // the second sigma follows a cased sigma
		{"\xff", "\ufffd"},     // invalid UTF-8 becomes U+FFFD
		{"ÀÉÎ", "àéî"},         // simple mappings agree with Go
		{"ǅ", "ǆ"},             // titlecase digraph
		{"Straße", "straße"},   // ß is already lower case
		{"ΌΣΟΣ ΣΑ", "όσος σα"}, // the space ends a word
	}
	for _, tc := range tests {
		if got := Lower(tc.in); got != tc.want {
			t.Errorf("Lower(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIsSpace(t *testing.T) {
	space := []rune{0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x85, 0xA0, 0x1680,
		0x2000, 0x2005, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000}
	notSpace := []rune{0x00, 0x08, 0x0E, 0x1B, 0x21, '_', 'a', 0x7F, 0x84, 0x180E, 0x200B, 0x200C, 0x2060, 0xFEFF, 0x3001}
	for _, r := range space {
		if !IsSpace(r) {
			t.Errorf("IsSpace(%U) = false, want true", r)
		}
	}
	for _, r := range notSpace {
		if IsSpace(r) {
			t.Errorf("IsSpace(%U) = true, want false", r)
		}
	}
}

// schema builds {"type":"object","properties":{k: {"type":"string"}, ...}}
// with the keys in the given order.
func schema(keys ...string) *jsonv.Value {
	var ms []jsonv.Member
	for _, k := range keys {
		ms = append(ms, jsonv.M(k, jsonv.NewObject(jsonv.M("type", jsonv.NewString("string")))))
	}
	return jsonv.NewObject(jsonv.M("type", jsonv.NewString("object")), jsonv.M("properties", jsonv.NewObject(ms...)))
}

func mustParse(t *testing.T, s string) *jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(s), jsonv.Options{})
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	return v
}

func TestDerive(t *testing.T) {
	tests := []struct {
		name   string
		schema *jsonv.Value
		want   []string
	}{
		{"writeFile", schema("path", "content"), []string{FSWrite}},
		{"read_file", schema("path"), []string{FSRead}},
		{"run_shell_command", schema("command"), []string{ShellExec}},
		{"fetchUrl", schema("url"), []string{HTTPRequest}},
		{"sqlQuery", schema("query"), []string{SQLQuery}},
		{"search_nodes", schema("query"), []string{SQLQuery}},
		// fs-read needs both a read-ish name and a path-like property.
		{"read_file", schema("name"), []string{}},
		{"lookup", schema("path"), []string{}},
		// fs-write: a path property next to a content property is enough.
		{"frobnicate", schema("dest", "payload"), []string{FSWrite}},
		{"frobnicate", schema("source", "payload"), []string{}},
		{"save_note", schema("target"), []string{FSWrite}},
		{"save_note", schema("title", "body"), []string{}},
		// get + path: read; create + path + content: write; both fire here.
		{"get_or_create_file", schema("filePath", "data"), []string{FSRead, FSWrite}},
		// Property segments match inside compound keys.
		{"x", schema("targetUrl"), []string{HTTPRequest}},
		{"x", schema("shell_script"), []string{ShellExec}},
		{"x", schema("sql-statement"), []string{SQLQuery}},
		// Substrings never count.
		{"shelter", schema("commands", "urls"), []string{}},
		{"execute_sh", nil, []string{ShellExec, SQLQuery}},
		{"HTTPServer", nil, []string{HTTPRequest}},
		// lİst is not "list" to Python, so only the property matters.
		{"lİst_files", schema("path"), []string{}},
		{"list_files", schema("path"), []string{FSRead}},
		// Kelvin sign lowers to k, but no keyword needs it: check it does
		// not break the match of the other segments.
		{"\u212aEEP_fetch", nil, []string{HTTPRequest}},
		// Non-object schemas and non-object properties contribute nothing.
		{"read_file", jsonv.NewString("path"), []string{}},
		{"read_file", mustParse(t, `{"properties":["path"]}`), []string{}},
		{"read_file", mustParse(t, `{"properties":null}`), []string{}},
		// Nested properties are ignored.
		{"read", mustParse(t, `{"properties":{"opts":{"properties":{"path":{}}}}}`), []string{}},
		{"", nil, []string{}},
	}
	for _, tc := range tests {
		got := Derive(tc.name, tc.schema)
		if got == nil || !slices.Equal(got, tc.want) {
			t.Errorf("Derive(%q, %s) = %#v, want %q", tc.name, compact(tc.schema), got, tc.want)
		}
	}
}

func compact(v *jsonv.Value) string {
	if v == nil {
		return "<absent>"
	}
	return v.Compact()
}

func TestEvidence(t *testing.T) {
	tests := []struct {
		name   string
		schema *jsonv.Value
		flag   string
		want   string
	}{
		{"writeFile", schema("path", "content"), FSWrite, "name token 'write'"},
		// Path + content: the path property is reported, not the content.
		{"frobnicate", schema("payload", "dest"), FSWrite, "property 'dest'"},
		{"search_nodes", schema("query"), SQLQuery, "property 'query'"},
		// The smallest matching name segment wins.
		{"sh_exec_bash", nil, ShellExec, "name token 'bash'"},
		// The first matching property in document order wins, not the
		// smallest key.
		{"x", schema("zUrl", "a_host"), HTTPRequest, "property 'zUrl'"},
		{"x", schema("a_host", "zUrl"), HTTPRequest, "property 'a_host'"},
		// fs-read uses its own path table (src/source).
		{"x", schema("source"), FSRead, "property 'source'"},
		// No supporting token at all.
		{"x", nil, SQLQuery, "derived capability 'sql-query'"},
		{"x", schema("path"), "no-such-flag", "derived capability 'no-such-flag'"},
		// The key is reported raw, not lower-cased.
		{"x", schema("TargetURL"), HTTPRequest, "property 'TargetURL'"},
	}
	for _, tc := range tests {
		if got := Evidence(tc.name, tc.schema, tc.flag); got != tc.want {
			t.Errorf("Evidence(%q, %s, %q) = %q, want %q", tc.name, compact(tc.schema), tc.flag, got, tc.want)
		}
	}
}

func TestPropertyNamesDocumentOrder(t *testing.T) {
	got := PropertyNames(mustParse(t, `{"properties":{"z":{},"a":{},"m":{}}}`))
	if want := []string{"z", "a", "m"}; !slices.Equal(got, want) {
		t.Errorf("PropertyNames = %q, want %q", got, want)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"HTTPServer", "lİst", "a\x1cb", "ΣΑΣ", "__init__", "a1B2c3D", "\xff\xfe", "AΣ'B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkTokenizeASCII(t, s)
		checkSplitRunes(t, s)
		toks := Tokenize(s)
		for _, tok := range toks {
			if tok == "" {
				t.Fatalf("Tokenize(%q) produced an empty token: %q", s, toks)
			}
			if Lower(tok) != tok {
				t.Fatalf("Tokenize(%q) produced a token that is not lower case: %q", s, tok)
			}
			if strings.ContainsFunc(tok, isDelimiter) {
				t.Fatalf("Tokenize(%q) produced a token holding a delimiter: %q", s, tok)
			}
		}
		if utf8.ValidString(s) && len(toks) == 0 && strings.IndexFunc(s, func(r rune) bool { return !isDelimiter(r) }) >= 0 {
			t.Fatalf("Tokenize(%q) lost every non-delimiter character", s)
		}
	})
}

// TestTokenizeASCIIMatchesRunes holds the ASCII fast path to the general one.
func TestTokenizeASCIIMatchesRunes(t *testing.T) {
	for _, s := range []string{"", "a", "runShellCommand", "run_shell_command", "run-shell.command", "getURL", "file2Path",
		"HTTPServer", "READfile", "__x__", "a\x1cb", "A", "AB", "ABc", "aB", "1A", "x..y", " ", "Q1q", "already lower"} {
		checkTokenizeASCII(t, s)
	}
}

// TestSplitRunesMatchesRuneSlice holds the substring path for valid UTF-8
// (splitRunes, and segmentBits over it) to the rune-slice one.
func TestSplitRunesMatchesRuneSlice(t *testing.T) {
	for _, s := range []string{"", "données_1", "🔍_user_8236", "ファイル_4", "fooÄbc", "ÄBc", "aÄB", "xAΣb", "AΣB", "HTTPΣerver",
		"read\u00a0file", "run\u3000Shell", "\u212Aey_path", "lİst", "ΣΑΣ", "AΣ'B", "Q1q", "a1B2c3D", "fileÜPath", "getURL_ä",
		"écrireFichier", "deleteÉ", "é", "__é__", "Aé", "AAé", "ABé", "ABc"} {
		checkSplitRunes(t, s)
	}
}

// checkSplitRunes fails unless, for a valid UTF-8 s, tokenizeRunes and
// segmentBits agree with the rune-slice tokenizer.
func checkSplitRunes(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		return
	}
	got, want := tokenizeRunes(s), tokenizeRuneSlice(s)
	if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
		t.Fatalf("Tokenize(%q): substrings %q, rune slice %q", s, got, want)
	}
	var bits uint16
	for _, seg := range want {
		bits |= lookupBits(seg)
	}
	var buf [64]byte
	if b := segmentBits(s, &buf); b != bits {
		t.Fatalf("segmentBits(%q) = %b, the rune slice's segments give %b", s, b, bits)
	}
}

func checkTokenizeASCII(t *testing.T, s string) {
	t.Helper()
	if !isASCII(s) {
		return
	}
	got, want := tokenizeASCII(s), tokenizeRunes(s)
	if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) || (got == nil) != (want == nil) {
		t.Fatalf("Tokenize(%q): ASCII path %q, general path %q", s, got, want)
	}
}
