package snapshot

import (
	"fmt"
	"strings"

	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/jsonv"
)

// SecretError refuses a snapshot in which the secret screen found a
// secret. A snapshot stores the server's text verbatim and is committed
// beside the lock, so a token a server put in a description would be
// published with it.
type SecretError struct {
	// Where lists "<JSON path> (<rule> <redacted snippet>)" for each hit,
	// or "<JSON path> (a value handed to the server ...)"; never a value.
	Where []string
}

func (e *SecretError) Error() string {
	return fmt.Sprintf("refusing to write a surface snapshot that would store a secret verbatim: %s; re-run with --allow-secret-in-snapshot if the value is not secret, or with --no-snapshot to write no snapshot", strings.Join(e.Where, "; "))
}

// Screen scans every string of the snapshot (keys included), but for the
// launch identity, which the lock stores and screens itself, with the
// vendor patterns of the secret scanner, as a pin screens its lock (the
// entropy rule left out: hex identifiers in enums are not secrets), and,
// when handed is not nil, for values handed to the server (handed reports
// whether a string holds one). A hit is a *SecretError naming each place
// by its JSON path in the snapshot, which p must be sorted for. A tool
// whose text holds none of the patterns' fixed prefixes cannot match
// them, so only the others are parsed back and walked (all of them when
// handed is set).
func (p *Parts) Screen(handed func(string) bool) error {
	w := &walker{handed: handed}
	root := jsonv.Path{}
	if p.Protocol != "" {
		w.text(root.Key("protocolVersion"), p.Protocol)
	}
	for i, t := range p.Tools {
		if handed == nil && !findings.MayHoldVendorSecretBytes(t.Text) {
			continue
		}
		v, err := jsonv.Parse(t.Text, jsonv.Options{})
		if err != nil {
			return fmt.Errorf("screen surface snapshot: %w", err)
		}
		w.walk(root.Key("tools").Index(i), v)
	}
	for i, r := range p.Resources {
		w.walk(root.Key("resources").Index(i), resourceValue(r))
	}
	for i, q := range p.Prompts {
		w.walk(root.Key("prompts").Index(i), promptValue(q))
	}
	if len(w.where) == 0 {
		return nil
	}
	return &SecretError{Where: w.where}
}

type walker struct {
	handed func(string) bool
	where  []string
}

func (w *walker) walk(p jsonv.Path, v *jsonv.Value) {
	switch v.Kind {
	case jsonv.String:
		w.text(p, v.Text)
	case jsonv.Array:
		for i, it := range v.Items {
			w.walk(p.Index(i), it)
		}
	case jsonv.Object:
		for _, m := range v.Members {
			w.text(p.Key("(a key)"), m.Key)
			w.walk(p.Key(w.pathKey(m.Key)), m.Value)
		}
	}
}

// maxWhere bounds the hits listed: one line must stay readable.
const maxWhere = 20

func (w *walker) text(p jsonv.Path, s string) {
	if len(w.where) >= maxWhere {
		return
	}
	if w.handed != nil && w.handed(s) {
		w.where = append(w.where, p.String()+" (a value handed to the server through --env, --header or a config variable)")
	}
	if !findings.MayHoldVendorSecret(s) {
		return
	}
	for _, f := range findings.ScanField(s, p.String()) {
		if f.RuleID != findings.RuleSecEntropy {
			w.where = append(w.where, fmt.Sprintf("%s (%s %s)", f.Target, f.RuleID, f.Snippet))
		}
	}
}

// pathKey is how a key is spelled in the paths of hits below it: clipped,
// and, when the key may itself be a secret (or a handed value), not
// spelled at all.
func (w *walker) pathKey(k string) string {
	if findings.MayHoldVendorSecret(k) || w.handed != nil && w.handed(k) {
		return "(a key)"
	}
	return clipKey(k)
}

// clipKey clips a key for a path: keys are server text.
func clipKey(k string) string {
	if len(k) <= 32 {
		return k
	}
	n := clipName(k)
	return n[1 : len(n)-len(`"…`)]
}
