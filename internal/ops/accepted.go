package ops

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/surface"
)

// ParseAcceptListErrors reads the values of pin --accept-list-error (the
// Action's accept-list-error input): each LIST=CODE, LIST one of tools,
// resources or prompts and CODE a JSON-RPC error code (an integer of
// magnitude at most lock.MaxErrorCode), at most one per list. The result is
// nil when specs is empty: nothing is accepted unless asked for. Errors
// quote the value at fault; the caller names the flag or input.
func ParseAcceptListErrors(specs []string) (map[string]int64, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := make(map[string]int64, len(specs))
	for _, spec := range specs {
		list, codeText, ok := strings.Cut(strings.TrimSpace(spec), "=")
		list, codeText = strings.TrimSpace(list), strings.TrimSpace(codeText)
		quoted := strconv.Quote(clipSpec(spec))
		if !ok || list == "" || codeText == "" {
			return nil, fmt.Errorf("%s: want LIST=CODE, e.g. resources=-32603", quoted)
		}
		if !slices.Contains(lock.AcceptedLists[:], list) {
			return nil, fmt.Errorf("%s: the list must be tools, resources or prompts", quoted)
		}
		code, err := strconv.ParseInt(codeText, 10, 64)
		if err != nil || code > lock.MaxErrorCode || code < -lock.MaxErrorCode {
			return nil, fmt.Errorf("%s: the code must be a JSON-RPC error code (an integer), e.g. -32603", quoted)
		}
		if _, dup := out[list]; dup {
			return nil, fmt.Errorf("%s is given twice: a list accepts one error code", list)
		}
		out[list] = code
	}
	return out, nil
}

// clipSpec bounds a flag value quoted back in an error.
func clipSpec(s string) string { return report.Clip(s, 80) }

// errSurfaceAccepts refuses --accept-list-error with --surface: a surface
// file holds no list answers, so there is no error to accept.
var errSurfaceAccepts = errors.New("accept-list-error applies to a capture: a surface file holds no list errors to accept")

// pinnedAccepted is what a pin records of the capture's accepted errors.
func pinnedAccepted(s *surface.Surface) []lock.AcceptedListError {
	if len(s.AcceptedErrors) == 0 {
		return nil
	}
	out := make([]lock.AcceptedListError, len(s.AcceptedErrors))
	for i, a := range s.AcceptedErrors {
		out[i] = lock.AcceptedListError{List: a.List, Code: a.Code}
	}
	return out
}

// acceptsOf is what a check of base asks the capture to accept: exactly
// the errors its pin accepted, and nothing when it accepted none.
func acceptsOf(base *lock.Lock) map[string]int64 {
	if len(base.Pin.AcceptedListErrors) == 0 {
		return nil
	}
	out := make(map[string]int64, len(base.Pin.AcceptedListErrors))
	for _, a := range base.Pin.AcceptedListErrors {
		out[a.List] = a.Code
	}
	return out
}

// checkAccepted reports the lock's accepted errors as the check found
// them: occurred when the capture got the same error on that list.
func checkAccepted(base *lock.Lock, captured *surface.Surface) []report.AcceptedList {
	out := report.AcceptedFromLock(base, false)
	if captured == nil {
		return out
	}
	for i := range out {
		for _, got := range captured.AcceptedErrors {
			if got.List == out[i].List && got.Code == out[i].Code {
				out[i].Occurred = true
			}
		}
	}
	return out
}
