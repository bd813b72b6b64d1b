package lock

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/surface"
)

// backendLock is the lock of a server whose resources/list failed at pin
// and was accepted: one tool, no resources, no prompts.
func backendLock(t *testing.T) *Lock {
	t.Helper()
	v, err := jsonv.Parse([]byte(`{"command": "node", "args": ["pg.js"], "tools": [{"name": "query", "description": "Run a read-only SQL query", "inputSchema": {"type": "object", "properties": {"sql": {"type": "string"}}}}], "resources": [], "prompts": []}`), jsonv.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := surface.FromVector(v)
	if err != nil {
		t.Fatal(err)
	}
	l, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	l.WardenVersion = "1.2.3"
	l.Pin = NewPin(PinInfo{Version: "1.2.3", ProtocolVersion: "2025-06-18", Now: time.Date(2026, 6, 6, 14, 22, 5, 0, time.UTC)}, l.OverallDigest)
	return l
}

func TestAcceptedListErrorsRoundTrip(t *testing.T) {
	plain := backendLock(t)
	l := backendLock(t)
	l.Pin.AcceptedListErrors = []AcceptedListError{{"resources", -32603}, {"prompts", -32000}}
	data := Marshal(l)
	want := `    "rotation_count": 0,
    "accepted_list_errors": [
      {
        "list": "resources",
        "code": -32603
      },
      {
        "list": "prompts",
        "code": -32000
      }
    ]
  }
}
`
	if !bytes.HasSuffix(data, []byte(want)) {
		t.Fatalf("pin does not end with the accepted list errors:\n%s", data)
	}
	if bytes.Contains(Marshal(plain), []byte(acceptedKey)) {
		t.Error("a lock that accepted nothing writes the key")
	}
	back, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Pin.AcceptedListErrors; len(got) != 2 || got[0] != l.Pin.AcceptedListErrors[0] || got[1] != l.Pin.AcceptedListErrors[1] {
		t.Fatalf("read back %+v", got)
	}
	if len(back.Pin.Extra) != 0 {
		t.Errorf("the key was also kept as an unknown one: %+v", back.Pin.Extra)
	}
	if !bytes.Equal(Marshal(back), data) {
		t.Error("a rewrite changes the lock's bytes")
	}
	// Outside the digest: the same surface, the same overall digest.
	if l.OverallDigest != plain.OverallDigest {
		t.Error("the record changed the overall digest")
	}
	if err := Verify(back); err != nil {
		t.Fatal(err)
	}
}

func TestAcceptedListErrorsRefused(t *testing.T) {
	good := string(Marshal(backendLock(t)))
	with := func(value string) string {
		return strings.Replace(good, `"rotation_count": 0`, `"rotation_count": 0, "accepted_list_errors": `+value, 1)
	}
	const at = "$.pin.accepted_list_errors"
	tests := []struct {
		name, text, want string
	}{
		{"null", with(`null`), at + ": must be an array"},
		{"object", with(`{"list": "resources", "code": -32603}`), at + ": must be an array"},
		{"empty", with(`[]`), at + ": is empty"},
		{"item not object", with(`["resources=-32603"]`), at + "[0]: must be an object"},
		{"unknown list", with(`[{"list": "roots", "code": -32603}]`), at + `[0].list: must be "tools", "resources" or "prompts"`},
		{"list not string", with(`[{"list": 1, "code": -32603}]`), at + "[0].list: must be a string"},
		{"missing list", with(`[{"code": -32603}]`), at + `[0]: missing required key "list"`},
		{"missing code", with(`[{"list": "resources"}]`), at + `[0]: missing required key "code"`},
		{"code string", with(`[{"list": "resources", "code": "-32603"}]`), at + "[0].code: must be an integer"},
		{"code float", with(`[{"list": "resources", "code": -32603.0}]`), at + "[0].code: must be an integer"},
		{"code too big", with(`[{"list": "resources", "code": 9007199254740992}]`), at + "[0].code: must be an integer of magnitude at most"},
		{"extra member", with(`[{"list": "resources", "code": -32603, "why": "db"}]`), at + `[0]: has a member other than "list" and "code"`},
		{"repeated", with(`[{"list": "resources", "code": -32603}, {"list": "resources", "code": -32000}]`), at + "[1].list: repeats a list"},
		{"out of order", with(`[{"list": "prompts", "code": -32603}, {"list": "resources", "code": -32603}]`), at + "[1].list: repeats a list or breaks the order"},
		{"section not empty", with(`[{"list": "tools", "code": -32603}]`), at + "[0]: records an accepted error for tools, but the lock pins 1 of them"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
