package lock

import (
	"slices"
	"strconv"

	"github.com/wardenlock/warden/internal/jsonv"
)

// acceptedKey is the pin member that records the accepted list errors.
const acceptedKey = "accepted_list_errors"

// MaxErrorCode bounds the magnitude of an accepted JSON-RPC error code: the
// largest integer every JSON reader holds exactly (2^53-1), so that a code
// means the same number to any tool that reads the lock.
const MaxErrorCode = 1<<53 - 1

// acceptedListErrors reads pin.accepted_list_errors strictly: a non-empty
// array of {"list", "code"} objects with no other member, each list one of
// AcceptedLists at most once and in their order, each code an integer of at
// most MaxErrorCode. The record widens what a check accepts from a server,
// so any other shape is refused rather than guessed at.
func (r *reader) acceptedListErrors(v *jsonv.Value, p jsonv.Path) []AcceptedListError {
	if v == nil || v.Kind != jsonv.Array {
		r.fail(p, "must be an array of {\"list\", \"code\"} objects, found %s", kindOf(v))
		return nil
	}
	if len(v.Items) == 0 {
		r.fail(p, "is empty: a pin that accepted no list error has no such key")
		return nil
	}
	out := make([]AcceptedListError, 0, len(v.Items))
	last := -1
	for i, it := range v.Items {
		a, rank, ok := r.acceptedListError(it, p.Index(i))
		if !ok {
			return nil
		}
		if rank <= last {
			r.fail(p.Index(i).Key("list"), "repeats a list or breaks the order tools, resources, prompts")
			return nil
		}
		last = rank
		out = append(out, a)
	}
	return out
}

// acceptedListError reads one record and returns it with its list's place
// in AcceptedLists.
func (r *reader) acceptedListError(v *jsonv.Value, p jsonv.Path) (AcceptedListError, int, bool) {
	var a AcceptedListError
	if !r.object(v, p) {
		return a, 0, false
	}
	for _, m := range v.Members {
		if m.Key != "list" && m.Key != "code" {
			r.fail(p, "has a member other than \"list\" and \"code\"")
			return a, 0, false
		}
	}
	a.List = r.str(v, p, "list")
	if r.err != nil {
		return a, 0, false
	}
	rank := slices.Index(AcceptedLists[:], a.List)
	if rank < 0 {
		r.fail(p.Key("list"), "must be \"tools\", \"resources\" or \"prompts\"")
		return a, 0, false
	}
	c := r.required(v, p, "code")
	if c == nil {
		return a, 0, false
	}
	code, err := strconv.ParseInt(c.Text, 10, 64)
	if c.Kind != jsonv.Int || err != nil || code > MaxErrorCode || code < -MaxErrorCode {
		r.fail(p.Key("code"), "must be an integer of magnitude at most 2^53-1, found %s", kindOf(c))
		return a, 0, false
	}
	a.Code = code
	return a, rank, true
}

// acceptedSectionsEmpty refuses a lock whose pin records an accepted error
// for a list whose section is not empty: the record stands for an empty
// section, and a check that accepts the error again would otherwise see
// the pinned entries vanish behind it.
func acceptedSectionsEmpty(l *Lock) error {
	for i, a := range l.Pin.AcceptedListErrors {
		n := 0
		switch a.List {
		case "tools":
			n = len(l.Tools)
		case "resources":
			n = len(l.Resources)
		case "prompts":
			n = len(l.Prompts)
		}
		if n > 0 {
			p := jsonv.Path{}.Key("pin").Key(acceptedKey).Index(i)
			return errAt(p, "records an accepted error for %s, but the lock pins %d of them: an accepted list error stands for an empty section", a.List, n)
		}
	}
	return nil
}
