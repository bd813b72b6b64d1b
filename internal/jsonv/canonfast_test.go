package jsonv_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/wardenlock/warden/internal/jsonv"
)

// canonicalSeeds add to transcodeSeeds what CanonicalText must read or
// decline: a lock's indented skeleton, keys out of order and repeated
// apart, escapes of every kind, numbers of every form, deep nesting.
var canonicalSeeds = []string{
	"{\n  \"props\": {\n    \"$root\": {\n      \"type\": [\n        \"object\"\n      ],\n      \"required\": false,\n      \"enum\": null,\n      \"constraints\": {\n        \"additionalProperties\": true,\n        \"maximum\": 200.5,\n        \"pattern\": \"^[\\\\p{L}0-9_./-]+$\"\n      }\n    }\n  }\n}",
	`{"b":1,"c":2,"a":3,"b":4}`, `{"b":1,"a":2,"c":{"y":1,"x":2}}`, `{"\ud83d\ude00":1,"\ue000":2}`, "{\"\U0001F600\":1,\"\ue000\":2}",
	`["\b\f\n\r\t\u0001\u00e9\u20ac\ud83d\ude00\"\\\/"]`, `["\ud800"]`, `["\udc00x"]`, `["\ud800\u0041"]`, `["\x"]`, `["\u12"]`,
	`[0,-0,-1,10,007,1.0,1.25e3,1E+2,1e-2,-0.0,123456789012345,1234567890123456,12345678901234567890,1e400,-]`,
	`[1.]`, `[1e]`, `[.5]`, `[+1]`, `{"a":tru}`, `{"a":nul}`, `{"a":1,}`, `[1,]`, `{"a"}`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`,
	"[\"\x01\"]", "[\"\xff\"]", "{\"\xff\":1}", `{"a\u0062":1}`, `12`, `"s"`, `[]  `, `{}x`, `[[]]`, `{"a":{}}`,
	strings.Repeat("[", 70) + strings.Repeat("]", 70), strings.Repeat(`{"a":`, 63) + "1" + strings.Repeat("}", 63),
}

// describeCanonicalText renders what CanonicalText gives, then what
// Transcode gives after it (what a lock reader does on a decline), and
// where the Decoder ends.
func describeCanonicalText(data []byte, opts jsonv.Options, depth int, oneByte bool) (string, bool) {
	var d *jsonv.Decoder
	if oneByte {
		d = jsonv.NewDecoder(iotest.OneByteReader(bytes.NewReader(data)), opts)
	} else {
		d = jsonv.NewBytesDecoder(data, opts)
	}
	c, k, ok, err := d.CanonicalText([]byte("<"), []byte("<"), depth)
	fast := ok
	if err == nil && !ok {
		if string(c) != "<" || string(k) != "<" {
			return fmt.Sprintf("declined with text %q %q", c, k), false
		}
		c, k, ok, err = d.Transcode([]byte("<"), []byte("<"), depth)
	}
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return fmt.Sprintf("error %T %v (%d values)", err, err, d.Values()), fast
	}
	return fmt.Sprintf("%s | %s | %v (%d values)", c, k, ok, d.Values()), fast
}

// describeCanonicalOnly is describeCanonicalText for CanonicalOnly (or,
// with only false, CanonicalText), leaving out the compact text.
func describeCanonicalOnly(data []byte, opts jsonv.Options, depth int, oneByte, only bool) string {
	var d *jsonv.Decoder
	if oneByte {
		d = jsonv.NewDecoder(iotest.OneByteReader(bytes.NewReader(data)), opts)
	} else {
		d = jsonv.NewBytesDecoder(data, opts)
	}
	var k []byte
	var ok bool
	var err error
	if only {
		k, ok, err = d.CanonicalOnly([]byte("<"), depth)
	} else {
		_, k, ok, err = d.CanonicalText([]byte("<"), []byte("<"), depth)
	}
	fast := ok
	if err == nil && !ok {
		if string(k) != "<" {
			return fmt.Sprintf("declined with text %q", k)
		}
		_, k, ok, err = d.Transcode(nil, []byte("<"), depth)
	}
	if err == nil {
		err = d.Finish()
	}
	if err != nil {
		return fmt.Sprintf("error %T %v (%d values)", err, err, d.Values())
	}
	return fmt.Sprintf("%s | %v %v (%d values)", k, ok, fast, d.Values())
}

// checkCanonicalText holds CanonicalText, with Transcode after a
// decline, to Transcode alone: the same texts, verdict, refusal and
// count of values, reading from bytes or a byte at a time.
func checkCanonicalText(t *testing.T, data []byte, opts jsonv.Options, depth int) bool {
	t.Helper()
	fastAny := false
	for _, oneByte := range []bool{false, true} {
		want := describeTranscode(data, opts, depth, oneByte)
		got, fast := describeCanonicalText(data, opts, depth, oneByte)
		if got != want {
			t.Fatalf("CanonicalText(%q) at depth %d (one byte at a time: %v, read quickly: %v):\n got %s\nwant %s", data, depth, oneByte, fast, got, want)
		}
		fastAny = fastAny || fast
		// CanonicalOnly reads and declines what CanonicalText does.
		if got, want := describeCanonicalOnly(data, opts, depth, oneByte, true), describeCanonicalOnly(data, opts, depth, oneByte, false); got != want {
			t.Fatalf("CanonicalOnly(%q) at depth %d (one byte at a time: %v):\n got %s\nwant %s", data, depth, oneByte, got, want)
		}
	}
	return fastAny
}

func TestCanonicalTextMatchesTranscode(t *testing.T) {
	fast := 0
	for _, s := range append(append([]string{}, transcodeSeeds...), canonicalSeeds...) {
		for _, depth := range []int{0, 1, 448, 449, 510} {
			for _, opts := range []jsonv.Options{{}, {MaxDepth: 3, MaxValues: 12}, {MaxDepth: 70}, {MaxValues: 3}} {
				if checkCanonicalText(t, []byte(s), opts, depth) {
					fast++
				}
			}
		}
	}
	// Most seeds are read quickly at a shallow depth; a test that never
	// takes the quick path would prove nothing.
	if fast < 100 {
		t.Fatalf("only %d cases read quickly", fast)
	}
}

// TestCanonicalTextInArray reads values one after another from one
// Decoder, as a lock reader reads a lock's skeletons, so that a decline
// in the middle of a document leaves it where Transcode can go on.
func TestCanonicalTextInArray(t *testing.T) {
	items := append(append([]string{}, canonicalSeeds[:4]...), `{"b":[1,2.5,"\n"],"a":{}}`, `{"z":1e400}`, `{"a":-0}`)
	doc := "[" + strings.Join(items, ",\n  ") + "]"
	for _, oneByte := range []bool{false, true} {
		read := func(quick bool) string {
			var d *jsonv.Decoder
			if oneByte {
				d = jsonv.NewDecoder(iotest.OneByteReader(strings.NewReader(doc)), jsonv.Options{})
			} else {
				d = jsonv.NewBytesDecoder([]byte(doc), jsonv.Options{})
			}
			var out strings.Builder
			err := d.Array(func(i int) error {
				var c, k []byte
				var ok bool
				var err error
				if quick {
					c, k, ok, err = d.CanonicalText(nil, nil, 1)
				}
				if err == nil && !ok {
					c, k, ok, err = d.Transcode(nil, nil, 1)
				}
				fmt.Fprintf(&out, "%d %s %s %v\n", i, c, k, ok)
				return err
			})
			if err == nil {
				err = d.Finish()
			}
			fmt.Fprintf(&out, "%v %d", err, d.Values())
			return out.String()
		}
		if got, want := read(true), read(false); got != want {
			t.Fatalf("one byte at a time: %v:\n got %s\nwant %s", oneByte, got, want)
		}
	}
}

func FuzzCanonicalText(f *testing.F) {
	for _, s := range append(append([]string{}, transcodeSeeds...), canonicalSeeds...) {
		f.Add([]byte(s), uint8(0), uint16(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, maxDepth uint8, depth uint16) {
		checkCanonicalText(t, data, jsonv.Options{MaxDepth: int(maxDepth)}, int(depth)%520)
	})
}
