// Package attest signs and verifies the statement that binds a lock's
// overall digest to a package coordinate, with Sigstore (keyless: a Fulcio
// certificate for an OIDC identity and a Rekor transparency-log entry), in
// the form the reference implementation signs and verifies
// (mcp-warden-lock-digest/v2, a bundle v0.3 messageSignature). It sits
// beside package lock: it knows digests and coordinates, never captures.
package attest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wardenlock/warden/internal/pyfmt"
)

// StatementType is the statement's _type, the reference's.
const StatementType = "mcp-warden-lock-digest/v2"

// Statement is what a lock signature binds (the reference's
// mcp-warden-lock-digest/v2): a package coordinate such as
// "npm:@scope/pkg@1.2.3" and the lock's overall_digest ("sha256:...").
type Statement struct{ Coordinate, Digest string }

// Canonical returns the statement as compact JSON with sorted keys: exactly
// the bytes whose SHA-256 the reference signs. Keys are fixed and sorted by
// hand; values are escaped as Python's json.dumps does (ASCII only, so a
// non-ASCII rune becomes \uXXXX), so that a coordinate with any text still
// hashes to the reference's bytes.
func (s Statement) Canonical() []byte {
	b := append([]byte(nil), `{"_type":`...)
	b = pyfmt.AppendASCIIString(b, StatementType)
	b = append(b, `,"coordinate":`...)
	b = pyfmt.AppendASCIIString(b, s.Coordinate)
	b = append(b, `,"digest":`...)
	b = pyfmt.AppendASCIIString(b, s.Digest)
	return append(b, '}')
}

// String renders the statement for a reviewer: the coordinate and digest.
func (s Statement) String() string {
	return fmt.Sprintf("coordinate %s, digest %s", quote(s.Coordinate), s.Digest)
}

// quote renders text that came from a file or a flag in an error: Go-quoted,
// so a control character cannot start a new line of output.
func quote(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// CheckCoordinate reports whether c is a coordinate a signature may bind:
// "npm:<package>@<version>" or "pypi:<package>@<version>", with a package
// name and an exact version made of the characters package names and
// versions use (no spaces, no range or tag operators). It is deliberately
// strict: a coordinate is part of what is signed, and a typo must be an
// error rather than a statement nobody else will ever rebuild.
func CheckCoordinate(c string) error {
	eco, rest, ok := strings.Cut(c, ":")
	if !ok || (eco != "npm" && eco != "pypi") {
		return fmt.Errorf("coordinate %s: want npm:<package>@<version> or pypi:<package>@<version>", quote(c))
	}
	at := strings.LastIndexByte(rest, '@')
	if at <= 0 {
		return fmt.Errorf("coordinate %s: no @<version>", quote(c))
	}
	pkg, ver := rest[:at], rest[at+1:]
	if ver == "" || !allIn(ver, versionChars) || !startsAlnum(ver) {
		return fmt.Errorf("coordinate %s: version must be exact (digits, letters, . + - _ !)", quote(c))
	}
	switch eco {
	case "npm":
		name := pkg
		if strings.HasPrefix(pkg, "@") {
			scope, n, ok := strings.Cut(pkg[1:], "/")
			if !ok || scope == "" || n == "" || !allIn(scope, npmChars) {
				return fmt.Errorf("coordinate %s: bad npm scope", quote(c))
			}
			name = n
		}
		if name == "" || !allIn(name, npmChars) {
			return fmt.Errorf("coordinate %s: bad npm package name", quote(c))
		}
	case "pypi":
		if !allIn(pkg, pypiChars) || !startsAlnum(pkg) {
			return fmt.Errorf("coordinate %s: bad PyPI package name", quote(c))
		}
	}
	if len(c) > 512 {
		return fmt.Errorf("coordinate %s: longer than 512 bytes", quote(c))
	}
	return nil
}

const (
	alnum        = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	npmChars     = alnum + "-._~"
	pypiChars    = alnum + "-._"
	versionChars = alnum + ".+-_!"
)

func allIn(s, set string) bool {
	for _, r := range s {
		if !strings.ContainsRune(set, r) {
			return false
		}
	}
	return true
}

func startsAlnum(s string) bool { return s != "" && strings.ContainsRune(alnum, rune(s[0])) }
