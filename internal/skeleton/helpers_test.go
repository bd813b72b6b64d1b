package skeleton

import (
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

// Shorthands for expected records, written as the JSON text Value produces.
const (
	open    = `{"additionalProperties":true}`
	anyRec  = `{"type":null,"required":false,"enum":null,"constraints":{"additionalProperties":true}}`
	objRec  = `{"type":["object"],"required":false,"enum":null,"constraints":{"additionalProperties":true}}`
	strRec  = `{"type":["string"],"required":false,"enum":null,"constraints":{"additionalProperties":true}}`
	strReq  = `{"type":["string"],"required":true,"enum":null,"constraints":{"additionalProperties":true}}`
	intRec  = `{"type":["integer"],"required":false,"enum":null,"constraints":{"additionalProperties":true}}`
	truncOK = `{"type":null,"required":false,"enum":null,"constraints":{"_truncated":true}}`
	truncRq = `{"type":null,"required":true,"enum":null,"constraints":{"_truncated":true}}`
)

// rec is the JSON text of one record.
func rec(typ string, required bool, enum, cons string) string {
	req := "false"
	if required {
		req = "true"
	}
	return `{"type":` + typ + `,"required":` + req + `,"enum":` + enum + `,"constraints":` + cons + `}`
}

// refRec is an opaque $ref leaf recording lit.
func refRec(required bool, lit string) string {
	return rec("null", required, "null", `{"$ref":`+string(jsonv.AppendQuoted(nil, lit))+`}`)
}

// props is the JSON text of a skeleton with the given path/record pairs, in
// the order given (tests list them in the order Value must write them).
func props(pairs ...string) string {
	var b strings.Builder
	b.WriteString(`{"props":{`)
	for i := 0; i+1 < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonv.AppendQuoted(nil, pairs[i]))
		b.WriteByte(':')
		b.WriteString(pairs[i+1])
	}
	b.WriteString(`}}`)
	return b.String()
}

// parse parses JSON text, failing the test on error.
func parse(t testing.TB, text string) *jsonv.Value {
	t.Helper()
	v, err := jsonv.Parse([]byte(text), jsonv.Options{})
	if err != nil {
		t.Fatalf("parse %q: %v", text, err)
	}
	return v
}

// compact re-renders JSON text compactly, keeping member order, so expected
// texts may be written with any whitespace.
func compact(t testing.TB, text string) string {
	t.Helper()
	return parse(t, text).Compact()
}

// extractText is Extract(schema).Value() as compact JSON text.
func extractText(t testing.TB, schema string) string {
	t.Helper()
	return Extract(parse(t, schema)).Value().Compact()
}
