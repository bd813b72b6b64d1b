package ops

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/wardenlock/warden/internal/findings"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/mask"
)

// StoredSecretError refuses a pin whose lock would hold a secret verbatim.
// The format stores the launch argv, entry names and URIs and the schema
// skeleton's enum and constraint values as they are, so a secret there
// would be committed to source control; SPEC §9 says the lock must not
// become a secret store.
type StoredSecretError struct {
	// Where lists "<JSON path> (<rule> <redacted snippet>)" for each hit.
	Where []string
}

func (e *StoredSecretError) Error() string {
	return fmt.Sprintf("refusing to write a lock that would store a secret verbatim: %s; pass secrets to the server through --env (or --header for URLs) rather than argv, or re-run with --allow-secret-in-lock if the value is not secret", strings.Join(e.Where, "; "))
}

// storedSecrets scans every string the lock stores verbatim (everything
// except digests, findings and pin) with the vendor patterns of the secret
// scanner. The entropy rule is left out here: hex-like identifiers in
// enums would make pin refuse legitimate servers, and entropy hits are
// reported as findings anyway.
//
// The lock is walked member by member in its document order, and a tool
// entry is walked (its skeletons parsed back from their compact text) only
// when its stored text holds one of the patterns' fixed prefixes: without
// one, no string in it can match (see findings.MayHoldVendorSecret).
func storedSecrets(l *lock.Lock) error { return storedSecretsScreened(l, toolMayHoldSecret) }

// storedHandedSecrets refuses a lock that would store, verbatim, a value
// handed to the server (an --env or --header value, a config's expanded
// variable): a server that names a tool after its token, or lists it in an
// enum, must not get it committed. Output masks such values; a lock cannot
// be masked without breaking its digests, so the pin is refused instead.
func storedHandedSecrets(l *lock.Lock, handed *mask.Set) error {
	if handed.Len() == 0 {
		return nil
	}
	w := &secretWalker{handed: handed}
	root := jsonv.Path{}
	w.walk(root.Key("server"), lock.ServerValue(l.Server))
	for i, t := range l.Tools {
		w.walk(root.Key("tools").Index(i), lock.ToolValue(t))
	}
	for i, r := range l.Resources {
		w.walk(root.Key("resources").Index(i), lock.ResourceValue(r))
	}
	for i, p := range l.Prompts {
		w.walk(root.Key("prompts").Index(i), lock.PromptValue(p))
	}
	if len(w.where) == 0 {
		return nil
	}
	return &StoredSecretError{Where: w.where}
}

// storedSecretsScreened is storedSecrets with the screen of tool entries
// given: mayHold must be true for every entry toolMayHoldSecret is true for
// (a pin that built the entries on several goroutines screened them there).
func storedSecretsScreened(l *lock.Lock, mayHold func(lock.Tool) bool) error {
	w := &secretWalker{}
	root := jsonv.Path{}
	w.walk(root.Key("warden_version"), jsonv.NewString(l.WardenVersion))
	w.walk(root.Key("server"), lock.ServerValue(l.Server))
	for i, t := range l.Tools {
		if mayHold(t) {
			w.walk(root.Key("tools").Index(i), lock.ToolValue(t))
		}
	}
	for i, r := range l.Resources {
		w.walk(root.Key("resources").Index(i), lock.ResourceValue(r))
	}
	for i, p := range l.Prompts {
		w.walk(root.Key("prompts").Index(i), lock.PromptValue(p))
	}
	// Findings quote the surface (targets, snippets) and are embedded.
	for i, f := range l.Findings {
		for _, text := range []string{f.Target, f.Message, f.Snippet} {
			w.walk(root.Key("findings").Index(i), jsonv.NewString(text))
		}
	}
	if len(w.where) == 0 {
		return nil
	}
	return &StoredSecretError{Where: w.where}
}

// toolMayHoldSecret reports whether any string a tool entry stores could
// match a vendor pattern.
func toolMayHoldSecret(t lock.Tool) bool {
	if t.Inspection != nil || findings.MayHoldVendorSecret(t.Name) ||
		findings.MayHoldVendorSecret(t.SchemaSkeleton.Text()) || findings.MayHoldVendorSecret(t.OutputSchemaSkeleton.Text()) {
		return true
	}
	for _, c := range t.Capabilities {
		if findings.MayHoldVendorSecret(c) {
			return true
		}
	}
	return false
}

// secretWalker gathers the vendor-pattern hits of the strings under one
// lock member.
type secretWalker struct {
	where []string
	// handed, when set, makes the walker look for these values instead
	// of the vendor patterns.
	handed *mask.Set
}

func (w *secretWalker) walk(p jsonv.Path, v *jsonv.Value) {
	switch v.Kind {
	case jsonv.String:
		if w.handed != nil {
			if w.handed.Contains(v.Text) {
				w.where = append(w.where, p.String()+" (a value handed to the server through --env, --header or a config variable)")
			}
			return
		}
		if !findings.MayHoldVendorSecret(v.Text) {
			return
		}
		for _, f := range findings.ScanField(v.Text, p.String()) {
			if f.RuleID != findings.RuleSecEntropy {
				w.where = append(w.where, fmt.Sprintf("%s (%s %s)", f.Target, f.RuleID, f.Snippet))
			}
		}
	case jsonv.Array:
		for i, it := range v.Items {
			w.walk(p.Index(i), it)
		}
	case jsonv.Object:
		for _, m := range v.Members {
			if m.Key == "pin" || m.Key == "findings" || strings.HasSuffix(m.Key, "_digest") || strings.HasSuffix(m.Key, "_hash") {
				continue
			}
			w.walk(p.Key(m.Key), m.Value)
		}
	}
}

// credentialParams are query parameter names (lower-cased, "-" read as
// "_") whose value is taken for a credential; so is any name ending in
// one of credentialSuffixes.
var (
	credentialParams   = []string{"key", "apikey", "api_key", "token", "access_token", "secret", "client_secret", "password", "passwd", "pwd", "auth", "sig", "signature"}
	credentialSuffixes = []string{"_key", "_token", "_secret", "_password"}
)

// headerHint is how a URL credential should be passed instead.
const headerHint = "send credentials in a header instead, read from the environment: --header 'Authorization: Bearer ${TOKEN}' (the Action's headers input)"

// storedURLError refuses a server URL that would put a credential in the
// lock: pin stores server.url verbatim (its command_digest hashes it), and
// the lock is committed. It never quotes the URL, only where the
// credential sits; a credential-looking value is shown redacted.
//
// Refused: any userinfo (user:password@ before the host), always; a query
// parameter with a credential name (see credentialParams) whose value is
// neither empty nor a ${NAME} placeholder; a query value or the fragment
// matching a vendor secret pattern. The last two are let through by
// allowSecret (--allow-secret-in-lock), for values that are not secret.
func storedURLError(raw string, allowSecret bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		// Not quoted: it may hold the very credential. Capture refuses it
		// too, with the redacted form.
		return errors.New("the server URL is not a valid URL")
	}
	if u.User != nil {
		return fmt.Errorf("refusing to pin a server URL with user credentials (user:password@ before the host): the lock stores the URL verbatim; %s", headerHint)
	}
	if allowSecret {
		return nil
	}
	var where []string
	for _, part := range strings.Split(u.RawQuery, "&") {
		if part == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(part, "=")
		name, value := unescape(rawName), unescape(rawValue)
		switch {
		case isCredentialParam(name) && value != "" && !isPlaceholder(value):
			where = append(where, fmt.Sprintf("query parameter %s", quoteName(name)))
		default:
			for _, f := range findings.ScanField(value, "") {
				if f.RuleID != findings.RuleSecEntropy {
					where = append(where, fmt.Sprintf("the value of query parameter %s (%s %s)", quoteName(name), f.RuleID, f.Snippet))
				}
			}
		}
	}
	for _, f := range findings.ScanField(unescape(u.EscapedFragment()), "") {
		if f.RuleID != findings.RuleSecEntropy {
			where = append(where, fmt.Sprintf("the fragment (%s %s)", f.RuleID, f.Snippet))
		}
	}
	if len(where) == 0 {
		return nil
	}
	return fmt.Errorf("refusing to pin a server URL that carries a credential in %s: the lock stores the URL verbatim; %s, or re-run with --allow-secret-in-lock if the value is not secret", strings.Join(where, ", "), headerHint)
}

// unescape decodes a query component as a server would, keeping it as it
// is when it is not valid percent-encoding.
func unescape(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	return s
}

func isCredentialParam(name string) bool {
	n := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	if slices.Contains(credentialParams, n) {
		return true
	}
	for _, suffix := range credentialSuffixes {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// isPlaceholder reports whether v is a ${NAME} reference, which holds no
// secret (warden does not expand it in a URL; it is sent as written).
func isPlaceholder(v string) bool {
	name, ok := strings.CutPrefix(v, "${")
	if !ok {
		return false
	}
	name, ok = strings.CutSuffix(name, "}")
	if !ok || name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// quoteName quotes a parameter name for the message, clipped: it is the
// user's own input, but may be long or hold control characters.
func quoteName(name string) string {
	if len(name) > 64 {
		name = name[:64] + "…"
	}
	return strconv.Quote(name)
}
