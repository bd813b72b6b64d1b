package consensus

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/wardenlock/warden/internal/infile"
)

// attesterID is what an attester id may be: it names a file in the corpus.
var attesterID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// maxAttestersFile bounds an attesters file.
const maxAttestersFile = 1 << 20

// ParseAttester reads "ID=IDENTITY@ISSUER". The issuer follows the last
// "@": a workflow identity itself holds one ("...attest.yml@refs/heads/main").
func ParseAttester(s string) (Attester, error) {
	id, rest, ok := strings.Cut(s, "=")
	if !ok {
		return Attester{}, fmt.Errorf("attester %q: want ID=IDENTITY@ISSUER", s)
	}
	i := strings.LastIndex(rest, "@")
	if i < 0 {
		return Attester{}, fmt.Errorf("attester %q: want ID=IDENTITY@ISSUER (no @ISSUER)", s)
	}
	a := Attester{ID: id, Identity: rest[:i], Issuer: rest[i+1:]}
	if err := a.validate(); err != nil {
		return Attester{}, fmt.Errorf("attester %q: %w", s, err)
	}
	return a, nil
}

func (a Attester) validate() error {
	if !attesterID.MatchString(a.ID) {
		return fmt.Errorf("id %q must be letters, digits, '.', '_' or '-'", a.ID)
	}
	if a.Identity == "" || strings.ContainsAny(a.Identity, " \t\r\n") {
		return fmt.Errorf("identity %q must be a non-empty certificate identity", a.Identity)
	}
	// An issuer URL holds no "@": ID=IDENTITY@ISSUER splits at the last one.
	if !strings.HasPrefix(a.Issuer, "https://") || strings.ContainsAny(a.Issuer, " \t\r\n@") {
		return fmt.Errorf("issuer %q must be an https:// OIDC issuer URL", a.Issuer)
	}
	return nil
}

// attesterEntry is one entry of an attesters.json file.
type attesterEntry struct {
	ID       string `json:"id"`
	Identity string `json:"certificate_identity"`
	Issuer   string `json:"oidc_issuer"`
}

// ReadAttestersFile reads the attesters the user trusts from a file in
// the corpus's attesters.json format. Keys it does not know are ignored.
func ReadAttestersFile(path string) ([]Attester, error) {
	data, err := infile.ReadAll(path, "attesters file", maxAttestersFile)
	if err != nil {
		return nil, err
	}
	var entries []attesterEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("read attesters file %s: want a JSON array of {id, certificate_identity, oidc_issuer}: %w", path, err)
	}
	out := make([]Attester, 0, len(entries))
	for i, e := range entries {
		a := Attester{ID: e.ID, Identity: e.Identity, Issuer: e.Issuer}
		if err := a.validate(); err != nil {
			return nil, fmt.Errorf("read attesters file %s: entry %d: %w", path, i, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// dedupe refuses one id trusted with two identities, and drops exact
// repeats.
func dedupe(as []Attester) ([]Attester, error) {
	seen := map[string]Attester{}
	var out []Attester
	for _, a := range as {
		if b, ok := seen[a.ID]; ok {
			if a != b {
				return nil, fmt.Errorf("attester %q is given twice with different identities", a.ID)
			}
			continue
		}
		seen[a.ID] = a
		out = append(out, a)
	}
	return out, nil
}
