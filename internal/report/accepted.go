package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
)

// AcceptedList is a list whose first page the server answered at pin with a
// JSON-RPC error that the pin was told to accept (pin --accept-list-error),
// recorded in the lock's pin.accepted_list_errors, as a check found it. Its
// fields are warden's own (one of three list names and an integer), never
// server text, so every report may show them as they are.
type AcceptedList struct {
	// List is "tools", "resources" or "prompts".
	List string
	// Code is the error code the lock accepts.
	Code int64
	// Occurred is set when the run's capture got that error (always, for
	// a pin), so the section was empty again; otherwise the list answered
	// (or the check read a surface file) and what it lists is compared
	// with the empty pinned section like any other.
	Occurred bool
}

// AcceptedFromLock lists the lock's accepted list errors, each with
// Occurred set as given (true for the lock a pin wrote).
func AcceptedFromLock(l *lock.Lock, occurred bool) []AcceptedList {
	if l == nil {
		return nil
	}
	out := make([]AcceptedList, 0, len(l.Pin.AcceptedListErrors))
	for _, a := range l.Pin.AcceptedListErrors {
		out = append(out, AcceptedList{List: a.List, Code: a.Code, Occurred: occurred})
	}
	return out
}

// AcceptedText is the sentence a check's report gives a.
func AcceptedText(a AcceptedList) string {
	if a.Occurred {
		return fmt.Sprintf("%s/list answered JSON-RPC error %d, accepted as an empty section as at pin (pin.accepted_list_errors)", a.List, a.Code)
	}
	return fmt.Sprintf("%s/list, accepted at pin as JSON-RPC error %d (pin.accepted_list_errors), did not answer with that error: its items are compared with the empty pinned section", a.List, a.Code)
}

// PinAcceptedText is the sentence a pin's report gives a.
func PinAcceptedText(a AcceptedList) string {
	return fmt.Sprintf("%s/list answered JSON-RPC error %d, accepted as an empty section (accept-list-error) and recorded in pin.accepted_list_errors", a.List, a.Code)
}

// WriteAcceptedText writes a "note:" line for each accepted list of a
// check, after its verdict.
func WriteAcceptedText(w io.Writer, accepted []AcceptedList) error {
	bw := bufio.NewWriter(w)
	for _, a := range accepted {
		fmt.Fprintf(bw, "note: %s\n", AcceptedText(a))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write check result: %w", err)
	}
	return nil
}

// acceptedRecord is the --json record of an accepted list.
func acceptedRecord(a AcceptedList) *jsonv.Value {
	return jsonv.NewObject(
		jsonv.M("kind", jsonv.NewString("accepted_list_error")),
		jsonv.M("list", jsonv.NewString(a.List)),
		jsonv.M("code", jsonv.NewInt(a.Code)),
		jsonv.M("occurred", jsonv.NewBool(a.Occurred)),
		jsonv.M("message", jsonv.NewString(AcceptedText(a))),
	)
}

// acceptedProperty is the SARIF run property of the accepted lists.
func acceptedProperty(accepted []AcceptedList) []map[string]any {
	out := make([]map[string]any, len(accepted))
	for i, a := range accepted {
		out[i] = map[string]any{"list": a.List, "code": a.Code, "occurred": a.Occurred}
	}
	return out
}

// acceptedNotifications are the SARIF tool-execution notifications of the
// accepted lists, at level note.
func acceptedNotifications(accepted []AcceptedList) []*sarif.Notification {
	out := make([]*sarif.Notification, len(accepted))
	for i, a := range accepted {
		out[i] = sarif.NewNotification().WithLevel("note").WithTextMessage(AcceptedText(a))
	}
	return out
}

// writeAcceptedMarkdown writes the job summary's or the comment's section
// on the accepted lists of a run in mode ("pin" or "check"), if any.
func writeAcceptedMarkdown(b *strings.Builder, mode string, accepted []AcceptedList) {
	if len(accepted) == 0 {
		return
	}
	b.WriteString("### Lists accepted as errors\n\n")
	if mode == "pin" {
		b.WriteString("The server answered these lists with an error the pin was told to accept (`accept-list-error`): " +
			"each section is pinned empty, and the lock records it in `pin.accepted_list_errors` (outside the overall digest).\n\n" +
			"| List | Error code |\n|---|---:|\n")
		for _, a := range accepted {
			fmt.Fprintf(b, "| `%s/list` | %d |\n", a.List, a.Code)
		}
		b.WriteString("\n")
		return
	}
	b.WriteString("The lock records that these lists failed at pin and were accepted as empty sections " +
		"(`pin.accepted_list_errors`, outside the overall digest).\n\n" +
		"| List | Error code | This check |\n|---|---:|---|\n")
	for _, a := range accepted {
		now := "answered without that error: its items are compared with the empty pinned section"
		if a.Occurred {
			now = "the same error again: accepted as an empty section"
		}
		fmt.Fprintf(b, "| `%s/list` | %d | %s |\n", a.List, a.Code, now)
	}
	b.WriteString("\n")
}

// WriteLockAcceptedText writes a "note:" line for each list the lock shown
// as name records as accepted at pin (a diff names both locks' records:
// they are outside the overall digest, so no drift item shows a change).
func WriteLockAcceptedText(w io.Writer, name string, l *lock.Lock) error {
	bw := bufio.NewWriter(w)
	for _, a := range AcceptedFromLock(l, false) {
		fmt.Fprintf(bw, "note: %s records %s/list as accepted with JSON-RPC error %d at pin (pin.accepted_list_errors): its section is empty\n", Message(name), a.List, a.Code)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write diff result: %w", err)
	}
	return nil
}
