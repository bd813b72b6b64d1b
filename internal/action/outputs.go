package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// DelimiterPrefix starts every heredoc delimiter warden writes to
// GITHUB_OUTPUT; the rest is random per value.
const DelimiterPrefix = "ghadelimiter_"

// Output is one step output.
type Output struct {
	Name, Value string
}

// WriteOutputs appends outputs to w (the GITHUB_OUTPUT file) in the runner's
// heredoc form:
//
//	name<<ghadelimiter_<32 random hex digits>
//	value
//	ghadelimiter_<same digits>
//
// Each value gets its own delimiter drawn from random, so a value cannot
// predict it and end its own heredoc early to define other outputs. A value
// that nevertheless contains its delimiter is refused, as is a name that
// could itself break the format. This replaces go-githubactions' SetOutput,
// whose delimiter is fixed per process.
func WriteOutputs(w io.Writer, random io.Reader, outputs []Output) error {
	var b strings.Builder
	for _, o := range outputs {
		if !validOutputName(o.Name) {
			return fmt.Errorf("output name %q: only letters, digits, '-' and '_' are allowed", o.Name)
		}
		var raw [16]byte
		if _, err := io.ReadFull(random, raw[:]); err != nil {
			return fmt.Errorf("output %s: generate delimiter: %w", o.Name, err)
		}
		delim := DelimiterPrefix + hex.EncodeToString(raw[:])
		if strings.Contains(o.Value, delim) {
			return fmt.Errorf("output %s: the value contains its delimiter; refusing to write it", o.Name)
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", o.Name, delim, o.Value, delim)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write outputs: %w", err)
	}
	return nil
}

// validOutputName reports whether name is safe as an output name.
func validOutputName(name string) bool {
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
		default:
			return false
		}
	}
	return name != ""
}

// appendFile appends data to the runner file at path (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY). The runner creates these files; warden creates one
// only when run outside the runner with the variable pointing somewhere new.
func appendFile(path string, write func(io.Writer) error) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", path, cerr)
		}
	}()
	return write(f)
}

// randomToken returns 32 random hex digits.
func randomToken(random io.Reader) (string, error) {
	var raw [16]byte
	if _, err := io.ReadFull(random, raw[:]); err != nil {
		return "", fmt.Errorf("generate random token: %w", err)
	}
	return hex.EncodeToString(raw[:]), nil
}

// defaultRandom is the source of delimiters and stop-commands tokens.
func defaultRandom() io.Reader { return rand.Reader }
