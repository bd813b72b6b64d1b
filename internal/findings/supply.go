package findings

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/lock"
)

// curlPipeSnippetLen is how many code points of the joined argv a
// WRD-SUP-CURL-PIPE finding shows.
const curlPipeSnippetLen = 120

// SupplyChain runs the WRD-SUP-* rules (reference-behaviour §6.4) over a
// launch argv (command first) and returns their findings, all with target
// launch/command, in the reference's order: the curl-pipe shape first, then
// each package-manager position in argv order with its specs in order.
//
// The reference emits the same finding once per package-manager position
// that reaches a spec, and Scan then keeps only the first of each (rule,
// snippet). SupplyChain leaves out those repeats as it goes: a later
// position of the same manager sees a suffix of the specs the first one
// saw, so only the first npx, uvx and pip positions are examined. That
// keeps the work linear in the argv without changing what Scan returns.
//
// Snippets echo the argv, so any vendor-pattern secret in them is replaced
// by its redaction (see maskVendorSecrets); otherwise they are the
// reference's bytes.
func SupplyChain(argv []string) []lock.Finding {
	var out []lock.Finding
	seen := map[[2]string]bool{}
	add := func(rule, message, snippet string) {
		key := [2]string{rule, snippet}
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, lock.Finding{RuleID: rule, Severity: supplySeverity(rule), Target: TargetLaunch, Message: message, Snippet: snippet})
	}
	joined := strings.Join(argv, " ")
	if (strings.Contains(joined, "curl") || strings.Contains(joined, "wget")) && pipesToInterpreter(joined) {
		add(RuleSupCurlPipe, "Launch reconstructs a remote-fetch-execute (curl|sh / wget|sh) shape",
			firstRunes(maskVendorSecrets(joined), curlPipeSnippetLen))
	}
	requireHashes := slices.Contains(argv, "--require-hashes")
	done := map[string]bool{}
	for i, tok := range argv {
		var manager, unpinnedRule, unpinnedMsg string
		from := i
		switch caps.Lower(tok) {
		case "npx":
			manager, unpinnedRule, unpinnedMsg = "npx", RuleSupNPXUnpinned, "Unpinned npx package (resolves latest at run)"
		case "uvx":
			manager, unpinnedRule, unpinnedMsg = "uvx", RuleSupUVXUnpinned, "Unpinned uvx package (mutable upstream)"
		case "pip", "pip3":
			manager, unpinnedRule, unpinnedMsg = "pip", RuleSupPIPUnpinned, "Unpinned pip install target (mutable dependency)"
		default:
			continue
		}
		if done[manager] {
			continue
		}
		if manager == "pip" {
			// Only an install counts, and its specs are what follows the
			// first "install" at or after the pip token. A pip position
			// without one says nothing about later pip positions.
			k := slices.Index(argv[i:], "install")
			if k < 0 {
				continue
			}
			from = i + k
		}
		done[manager] = true
		for _, spec := range argv[from+1:] {
			if strings.HasPrefix(spec, "-") || isLocalPath(spec) {
				continue
			}
			var pinned bool
			switch {
			case strings.HasSuffix(spec, "@latest") || strings.HasSuffix(spec, "==latest"):
				add(RuleSupLatestTag, "Explicit floating 'latest' tag in "+manager+" spec", maskVendorSecrets(spec))
				continue
			case manager == "npx":
				pinned = npxPinned(spec)
			default:
				pinned = requireHashes || pythonPinned(spec)
			}
			if !pinned {
				add(unpinnedRule, unpinnedMsg, maskVendorSecrets(spec))
			}
		}
	}
	return out
}

func supplySeverity(rule string) string {
	if rule == RuleSupCurlPipe {
		return Critical
	}
	return High
}

// isLocalPath reports whether an argv token names a local path rather than
// a package, which the reference never flags.
func isLocalPath(tok string) bool {
	for _, p := range []string{"./", "../", "/", "~", "file:"} {
		if strings.HasPrefix(tok, p) {
			return true
		}
	}
	return tok == "."
}

// pipesToInterpreter reports whether s holds a pipe into an interpreter: a
// '|', optional whitespace, then sh, bash, zsh, python (optionally followed
// by one decimal digit) or node, ending at a word boundary. Whitespace,
// digits and boundaries follow Python's Unicode rules.
func pipesToInterpreter(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '|' {
			continue
		}
		j := i + 1
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !isSpace(r) {
				break
			}
			j += size
		}
		// Every alternative starts with a letter, so giving back
		// whitespace cannot help; only the alternatives need trying.
		rest := s[j:]
		for _, name := range []string{"sh", "bash", "zsh", "python", "node"} {
			if !strings.HasPrefix(rest, name) {
				continue
			}
			end := j + len(name)
			if name == "python" {
				// python\d?: the greedy digit first, then without it.
				if r, size := utf8.DecodeRuneInString(s[end:]); end < len(s) && isDecimal(r) && !wordAt(s, end+size) {
					return true
				}
			}
			if !wordAt(s, end) {
				return true
			}
		}
	}
	return false
}

// npxPinned reports whether an npm spec ends in a pin: '@' followed by either
// a decimal digit and then only word characters, '.', '-' and '+' (a
// version), or "sha", decimal digits, ':' or '-', and hex digits (a digest).
//
// Python's `$` also matches just before a final "\n", so such a newline is
// set aside first. Neither alternative can contain '@' or run across a
// newline, so only the last '@' before the end can start a match.
func npxPinned(spec string) bool {
	end := len(spec)
	if strings.HasSuffix(spec, "\n") {
		end--
	}
	at := strings.LastIndexByte(spec[:end], '@')
	if at < 0 {
		return false
	}
	rest := spec[at+1 : end]
	return versionTail(rest) || digestTail(rest)
}

// versionTail reports whether s is a decimal digit followed only by word
// characters, '.', '-' and '+'.
func versionTail(s string) bool {
	for i, r := range s {
		if i == 0 {
			if !isDecimal(r) {
				return false
			}
			continue
		}
		if !isWord(r) && r != '.' && r != '-' && r != '+' {
			return false
		}
	}
	return s != ""
}

// digestTail reports whether s is "sha", decimal digits, ':' or '-', then
// one or more hex digits.
func digestTail(s string) bool {
	if !strings.HasPrefix(s, "sha") {
		return false
	}
	i, digits := len("sha"), 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isDecimal(r) {
			break
		}
		i += size
		digits++
	}
	if digits == 0 || i >= len(s) || (s[i] != ':' && s[i] != '-') {
		return false
	}
	hex := s[i+1:]
	return hex != "" && runEnd(hex, 0, isHex) == len(hex)
}

// pythonPinned reports whether a uvx or pip spec pins itself: it has "==",
// or it carries a full git commit ('@' and exactly 40 hex digits). A
// "--require-hashes" anywhere in the argv pins every spec; the caller checks
// that once.
func pythonPinned(spec string) bool {
	if strings.Contains(spec, "==") {
		return true
	}
	for i := 0; i < len(spec); i++ {
		if spec[i] != '@' || i+41 > len(spec) {
			continue
		}
		if runEnd(spec, i+1, isHex) >= i+41 && !wordAt(spec, i+41) {
			return true
		}
	}
	return false
}

// firstRunes returns the first n code points of s.
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
