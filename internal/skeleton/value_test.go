package skeleton

import (
	"errors"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

func TestValue(t *testing.T) {
	tests := []struct {
		name string
		sk   *Skeleton
		want string
	}{
		{"nil skeleton is null", nil, `null`},
		{"empty", &Skeleton{}, props()},
		{
			"paths re-sorted from Records, Paths ignored",
			&Skeleton{Paths: []string{"b", "a"}, Records: map[string]Record{
				"b":     {Type: []string{"string"}, Constraints: parse(t, open)},
				"a":     {Required: true, Constraints: parse(t, open)},
				"é":     {Constraints: parse(t, open)},
				"$root": {Constraints: parse(t, open)},
			}},
			props("$root", anyRec, "a", rec("null", true, "null", open), "b", strRec, "é", anyRec),
		},
		{
			"empty type list is [], nil constraints {}",
			&Skeleton{Records: map[string]Record{"x": {Type: []string{}, Enum: parse(t, `[1]`)}}},
			props("x", rec("[]", false, "[1]", "{}")),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := tc.sk.Value().Compact(), compact(t, tc.want); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestFromValue(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // Value() of the result; "" for a nil skeleton
		wantErr string // substring of the error; "" for success
	}{
		{"null is no skeleton", `null`, "", ""},
		{"missing props is empty", `{}`, props(), ""},
		{"unknown keys ignored", `{"props":{"a":{"x":1}},"extra":true}`, props("a", rec("null", false, "null", "{}")), ""},
		{"defaults", `{"props":{"a":{}}}`, props("a", rec("null", false, "null", "{}")), ""},
		{"round trip", props("$root", objRec, "a", strReq), props("$root", objRec, "a", strReq), ""},
		{
			"stored type kept as written",
			`{"props":{"a":{"type":["string","null","string"],"constraints":{"z":1,"$ref":"x"}}}}`,
			props("a", rec(`["string","null","string"]`, false, "null", `{"z":1,"$ref":"x"}`)), "",
		},
		{"empty type list kept", `{"props":{"a":{"type":[]}}}`, props("a", rec("[]", false, "null", "{}")), ""},
		{"enum kept as written", `{"props":{"a":{"enum":[2,1.0,"x",2]}}}`, props("a", rec("null", false, `[2,1.0,"x",2]`, "{}")), ""},
		{"unsorted props come back sorted", `{"props":{"b":{},"a":{}}}`, props("a", rec("null", false, "null", "{}"), "b", rec("null", false, "null", "{}")), ""},

		{"skeleton not an object", `[]`, "", "$: got array, want an object"},
		{"props null", `{"props":null}`, "", "$.props: got null, want an object"},
		{"props array", `{"props":[]}`, "", "$.props: got array, want an object"},
		{"record not an object", `{"props":{"a.b":5}}`, "", `$.props["a.b"]: got integer, want an object`},
		{"record null", `{"props":{"a":null}}`, "", "$.props.a: got null, want an object"},
		{"type a string", `{"props":{"a":{"type":"string"}}}`, "", "$.props.a.type: got string, want an array of strings or null"},
		{"type member not a string", `{"props":{"a":{"type":["string",5]}}}`, "", "$.props.a.type[1]: got integer, want a string"},
		{"required a string", `{"props":{"a":{"required":"yes"}}}`, "", "$.props.a.required: got string, want a boolean"},
		{"required an int", `{"props":{"a":{"required":1}}}`, "", "$.props.a.required: got integer, want a boolean"},
		{"required null", `{"props":{"a":{"required":null}}}`, "", "$.props.a.required: got null, want a boolean"},
		{"enum an object", `{"props":{"a":{"enum":{}}}}`, "", "$.props.a.enum: got object, want an array or null"},
		{"enum a string", `{"props":{"a":{"enum":"x"}}}`, "", "$.props.a.enum: got string, want an array or null"},
		{"constraints null", `{"props":{"a":{"constraints":null}}}`, "", "$.props.a.constraints: got null, want an object"},
		{"constraints array", `{"props":{"$root":{"constraints":[]}}}`, "", "$.props.$root.constraints: got array, want an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sk, err := FromValue(parse(t, tc.in))
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("FromValue(%s) succeeded, want error %q", tc.in, tc.wantErr)
				}
				if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("FromValue(%s) error %q, want ErrMalformed containing %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromValue(%s): %v", tc.in, err)
			}
			if tc.want == "" {
				if sk != nil {
					t.Fatalf("FromValue(%s) = %v, want nil", tc.in, sk)
				}
				return
			}
			if got, want := sk.Value().Compact(), compact(t, tc.want); got != want {
				t.Errorf("FromValue(%s).Value()\n got %s\nwant %s", tc.in, got, want)
			}
			if len(sk.Paths) != len(sk.Records) {
				t.Errorf("Paths %q do not match Records", sk.Paths)
			}
			for i := 1; i < len(sk.Paths); i++ {
				if sk.Paths[i-1] >= sk.Paths[i] {
					t.Errorf("Paths not sorted: %q", sk.Paths)
				}
			}
		})
	}
}

func TestFromValueNilAndDuplicates(t *testing.T) {
	if sk, err := FromValue(nil); sk != nil || err != nil {
		t.Errorf("FromValue(nil) = %v, %v", sk, err)
	}
	// Repeated keys (as a lenient reader may hand over): the last wins and
	// an earlier invalid duplicate is never looked at, as with json.loads.
	v := jsonv.NewObject(jsonv.M("props", jsonv.NewObject(
		jsonv.M("a", jsonv.NewInt(5)),
		jsonv.M("a", jsonv.NewObject(
			jsonv.M("required", jsonv.NewBool(false)),
			jsonv.M("required", jsonv.NewBool(true)),
		)),
	)))
	sk, err := FromValue(v)
	if err != nil {
		t.Fatal(err)
	}
	if !sk.Records["a"].Required || len(sk.Paths) != 1 {
		t.Errorf("got %s", sk.Value().Compact())
	}
}
