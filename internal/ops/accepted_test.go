package ops

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/testserver"
)

func TestParseAcceptListErrors(t *testing.T) {
	tests := []struct {
		specs   []string
		want    map[string]int64
		wantErr bool
	}{
		{nil, nil, false},
		{[]string{"resources=-32603"}, map[string]int64{"resources": -32603}, false},
		{[]string{" tools = 1 ", "prompts=-32000"}, map[string]int64{"tools": 1, "prompts": -32000}, false},
		{[]string{"resources=-9007199254740991"}, map[string]int64{"resources": -9007199254740991}, false},
		{[]string{"resources=-9007199254740992"}, nil, true},
		{[]string{"resources=0x10"}, nil, true},
		{[]string{"resources=-32603", "resources=-32603"}, nil, true},
		{[]string{"=-32603"}, nil, true},
		{[]string{"Resources=-32603"}, nil, true},
		{[]string{"roots=-32603"}, nil, true},
	}
	for _, tc := range tests {
		got, err := ParseAcceptListErrors(tc.specs)
		if (err != nil) != tc.wantErr || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseAcceptListErrors(%q) = %v, %v", tc.specs, got, err)
		}
	}
}

// TestCandidateKeepsAcceptedError: a check that drifts while the accepted
// error recurs hands back a candidate lock that records it, as a pin with
// the same opt-in would, and that the reader accepts.
func TestCandidateKeepsAcceptedError(t *testing.T) {
	raw := testserver.Build(t, "testdata/servers/rawserver")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lockPath := filepath.Join(t.TempDir(), "warden.lock")
	down := []string{"RAWSERVER_LIST_ERROR=resources=-32603"}
	if _, err := Pin(ctx, PinOptions{Target: Target{Argv: []string{raw}, Env: down, AcceptListErrors: map[string]int64{"resources": -32603}},
		LockPath: lockPath, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	// The prompts are gone (-32601), the resources still fail.
	res, err := Check(ctx, CheckOptions{Target: Target{Argv: []string{raw, "-mode", "method-not-found"}, Env: down}, LockPath: lockPath, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Drift) == 0 {
		t.Fatal("no drift")
	}
	if want := []report.AcceptedList{{List: "resources", Code: -32603, Occurred: true}}; !reflect.DeepEqual(res.Accepted, want) {
		t.Errorf("Accepted = %+v, want %+v", res.Accepted, want)
	}
	cand, err := Candidate(context.Background(), res, CandidateOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []lock.AcceptedListError{{List: "resources", Code: -32603}}; !reflect.DeepEqual(cand.Pin.AcceptedListErrors, want) {
		t.Errorf("candidate records %+v", cand.Pin.AcceptedListErrors)
	}
	if _, err := lock.Parse(lock.Marshal(cand)); err != nil {
		t.Errorf("the candidate lock does not read back: %v", err)
	}

	// When the list answers, the candidate pins what it lists and records
	// nothing.
	res, err = Check(ctx, CheckOptions{Target: Target{Argv: []string{raw}}, LockPath: lockPath, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Accepted) != 1 || res.Accepted[0].Occurred {
		t.Errorf("Accepted = %+v, want the record, not occurred", res.Accepted)
	}
	cand, err = Candidate(context.Background(), res, CandidateOptions{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cand.Pin.AcceptedListErrors) != 0 || len(cand.Resources) != 1 {
		t.Errorf("candidate: accepted %+v, %d resources", cand.Pin.AcceptedListErrors, len(cand.Resources))
	}
}
