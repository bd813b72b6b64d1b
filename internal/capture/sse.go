package capture

import (
	"bytes"
	"io"
	"strconv"
	"time"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	// typ is the event type; "message" when the stream did not name one.
	typ  string
	data []byte
	// id is the last event ID in effect when the event was dispatched.
	id string
}

// sseReader parses a text/event-stream body following the WHATWG
// "event stream interpretation" rules: CR, LF and CRLF end lines, a blank
// line dispatches, data lines are joined with LF, a leading BOM is dropped,
// comments and unknown fields are ignored, and an event cut off by the end of
// the stream is discarded. The data of one event is bounded by max bytes, the
// same bound as one JSON-RPC message.
type sseReader struct {
	lines  *lineReader
	max    int
	lastID string
	// retry is the reconnection delay the server asked for, if any.
	retry time.Duration
	// started is set once the optional leading BOM has been dealt with.
	started bool
}

func newSSEReader(r io.Reader, max int) *sseReader {
	// A line can hold "data: " plus a whole message; allow for the field
	// name so that a message of exactly max bytes still fits.
	return &sseReader{lines: newLineReader(r, max+64, true, "server-sent event line"), max: max}
}

// next returns the next event. Events with no data field are not dispatched,
// per the standard; the caller skips events whose data is empty.
func (s *sseReader) next() (sseEvent, error) {
	var (
		typ     string
		data    []byte
		hasData bool
	)
	for {
		line, err := s.lines.next()
		if err != nil {
			return sseEvent{}, err
		}
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		if len(line) == 0 {
			if !hasData {
				typ = ""
				continue
			}
			if typ == "" {
				typ = "message"
			}
			// data always ends in the LF appended after each data line.
			return sseEvent{typ: typ, data: data[:len(data)-1], id: s.lastID}, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "event":
			typ = string(value)
		case "data":
			if len(data)+len(value) > s.max {
				return sseEvent{}, &limitError{what: "server-sent event data", limit: int64(s.max)}
			}
			data = append(data, value...)
			data = append(data, '\n')
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.lastID = string(value)
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil && allDigits(value) {
				s.retry = time.Duration(ms) * time.Millisecond
			}
		}
		// Other fields are ignored, as the standard says.
	}
}

// allDigits reports whether b is a non-empty run of ASCII digits, the only
// form of retry value the standard accepts (ParseUint also takes "+1").
func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
