package jsonv_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
)

var transcodeSeeds = []string{
	`{}`, `[]`, `null`, `true`, `"a\u00e9\n\"\\\/"`, `-0`, `1.50`, `1e2`, `1e400`, `9007199254740991`, `9007199254740992`, `-9007199254740993`,
	`{"b":1,"a":[2,{"z":null,"y":false}],"\ue000":1,"\ud83d\ude00":2}`,
	`{"props":{"$root":{"type":["object"],"required":false,"enum":null,"constraints":{"additionalProperties":true,"maximum":101.0}}}}`,
	`{"a":1,"a":2}`, `[1,2`, `{"a" 1}`, `[tru]`, `{"k0":0,"k1":0,"k2":0,"k3":0,"k4":0,"k5":0,"k6":0,"k7":0,"k8":0,"k9":0,"k10":0,"k11":0,"k12":0,"k13":0,"k14":0,"k15":0,"k16":0,"k3":1}`,
	"{\n  \"x\": [\n    1,\n    \"é\"\n  ]\n}", `[[[[1]]]]`, `[1e-400, 0.1, 100.0, 1e21, 1e-7]`,
}

// describeTranscode renders what Transcode gives (or its error).
func describeTranscode(data []byte, opts jsonv.Options, depth int, oneByte bool) string {
	var d *jsonv.Decoder
	if oneByte {
		d = jsonv.NewDecoder(iotest.OneByteReader(bytes.NewReader(data)), opts)
	} else {
		d = jsonv.NewBytesDecoder(data, opts)
	}
	c, k, ok, err := d.Transcode([]byte("<"), []byte("<"), depth)
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return fmt.Sprintf("error %T %v (%d values)", err, err, d.Values())
	}
	return fmt.Sprintf("%s | %s | %v (%d values)", c, k, ok, d.Values())
}

// describeTree renders what Value, AppendCompact and canon give.
func describeTree(data []byte, opts jsonv.Options, depth int) string {
	v, n, err := jsonv.ParseCounted(data, opts)
	if err != nil {
		return fmt.Sprintf("error %T %v (%d values)", err, err, n)
	}
	// The canonical text of v as an element at depth: nest it so.
	wrapped := v
	for i := 0; i < depth; i++ {
		wrapped = jsonv.NewArray(wrapped)
	}
	k, cerr := canon.Canonical(wrapped)
	ok := cerr == nil
	kt := "<"
	if ok {
		kt += string(k[depth : len(k)-depth])
	}
	return fmt.Sprintf("<%s | %s | %v (%d values)", v.Compact(), kt, ok, n)
}

func checkTranscode(t *testing.T, data []byte, opts jsonv.Options, depth int) {
	t.Helper()
	want := describeTree(data, opts, depth)
	for _, oneByte := range []bool{false, true} {
		if got := describeTranscode(data, opts, depth, oneByte); got != want {
			t.Fatalf("Transcode(%q) at depth %d:\n got %s\nwant %s", data, depth, got, want)
		}
	}
}

func TestTranscodeMatchesTree(t *testing.T) {
	for _, s := range transcodeSeeds {
		for _, depth := range []int{0, 2, 510} {
			checkTranscode(t, []byte(s), jsonv.Options{}, depth)
			checkTranscode(t, []byte(s), jsonv.Options{MaxDepth: 3, MaxValues: 12}, depth)
		}
	}
}

func FuzzTranscode(f *testing.F) {
	for _, s := range transcodeSeeds {
		f.Add([]byte(s), uint8(0), uint16(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxDepth uint8, depth uint16) {
		checkTranscode(t, data, jsonv.Options{MaxDepth: int(maxDepth)}, int(depth)%520)
	})
}

func TestTranscodeKeys(t *testing.T) {
	// Keys written plainly, with escapes and with escapes that decode to
	// text that needs them again, in objects narrower and wider than the
	// widest checked without a map, with and without a repeated key.
	for _, width := range []int{1, 15, 17, 63, 64, 65, 130} {
		for _, form := range []string{"k%d", "a_much_longer_key_number_%d_", `k\u00e9%d`, `q\"%d\\`, `\u0001%d`, "%d"} {
			var b strings.Builder
			b.WriteString("{")
			for i := range width {
				fmt.Fprintf(&b, `"`+form+`": {"`+form+`": %d}, `, i, i, i)
			}
			doc := b.String()
			checkTranscode(t, []byte(doc+`"end": 1}`), jsonv.Options{}, 0)
			checkTranscode(t, []byte(doc+fmt.Sprintf(`"`+form+`": 1}`, width/2)), jsonv.Options{}, 0)
		}
	}
}
