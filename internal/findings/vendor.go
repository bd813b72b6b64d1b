package findings

import "strings"

// span is one vendor-pattern match: the rule that matched and the byte range
// of the matched text.
type span struct {
	rule       *secretRule
	start, end int
}

// secretRule is one vendor pattern of reference-behaviour §6.3. Every match
// of the pattern begins with prefix; match, given the offset of a prefix
// occurrence, returns the end of the match the reference's regular
// expression would make there, or -1.
//
// The patterns are matched by hand rather than with package regexp because
// Python's `\b` is Unicode-aware (a boundary needs a Unicode word character
// on exactly one side) while RE2's is ASCII-only: "sk-…é" ends no match in
// Python, and would in Go.
type secretRule struct {
	id, severity string
	prefix       string
	// wordStart is set when the pattern begins with `\b`. Every such prefix
	// starts with a word character, so the boundary holds exactly when the
	// preceding character is not one.
	wordStart bool
	match     func(m *matcher, i int) int
	// anchor, when set, tests the fixed characters after an occurrence of
	// prefix at i, which every match has. (MayHoldVendorSecret checks the
	// same characters by hand; its tests check it against these.)
	anchor func(s string, i int) bool
	// key is a byte every match has at offset keyAt from its start, in
	// prefix or among the characters anchor fixes (and match requires),
	// chosen to be rare in schema text and prose, so that find looks for
	// it (IndexByte) instead of for the prefix's first byte.
	key   byte
	keyAt int
	// message is the finding message.
	message string
}

// fixedAfter returns an anchor test: the byte after a prefix of length n
// is one of set, and the one after that is sep.
func fixedAfter(n int, set string, sep byte) func(s string, i int) bool {
	return func(s string, i int) bool {
		return i+n+1 < len(s) && strings.IndexByte(set, s[i+n]) >= 0 && s[i+n+1] == sep
	}
}

const secretSuffix = ": possible secret in field"

// vendorRules are the vendor patterns in the reference's order, which is the
// order their findings are emitted in.
var vendorRules = []*secretRule{
	// "sk-" and 20 or more ASCII letters/digits, on word boundaries.
	{id: RuleSecOpenAI, message: RuleSecOpenAI + secretSuffix, severity: Critical, prefix: "sk-", key: '-', keyAt: 2, wordStart: true, match: (*matcher).openAI},
	// "gh", one of p o u s r, "_", exactly 36 ASCII letters/digits.
	{id: RuleSecGitHub, message: RuleSecGitHub + secretSuffix, severity: Critical, prefix: "gh", key: '_', keyAt: 3, wordStart: true, match: (*matcher).gitHub, anchor: fixedAfter(2, "pousr", '_')},
	// "AKIA" and exactly 16 ASCII capitals/digits.
	{id: RuleSecAWS, message: RuleSecAWS + secretSuffix, severity: Critical, prefix: "AKIA", key: 'K', keyAt: 1, wordStart: true, match: (*matcher).aws},
	// "xox", one of b a p r s, "-", then 10 or more letters, digits or
	// dashes, ending where a word boundary allows.
	{id: RuleSecSlack, message: RuleSecSlack + secretSuffix, severity: Critical, prefix: "xox", key: '-', keyAt: 4, wordStart: true, match: (*matcher).slack, anchor: fixedAfter(3, "baprs", '-')},
	// A PEM private-key header, optionally naming RSA, EC, OPENSSH, DSA
	// or PGP; no boundary conditions.
	{id: RuleSecPrivKey, message: RuleSecPrivKey + secretSuffix, severity: Critical, prefix: "-----BEGIN ", key: 'B', keyAt: 5, match: (*matcher).privKey},
	// "eyJ" then three runs of 10 or more base64url characters separated
	// by dots, the last ending where a word boundary allows.
	{id: RuleSecJWT, message: RuleSecJWT + secretSuffix, severity: High, prefix: "eyJ", key: 'J', keyAt: 2, wordStart: true, match: (*matcher).jwt},
}

// matcher runs the vendor patterns over one string. It memoises the work a
// failed match attempt shares with the next attempt inside the same run of
// characters, so that inputs such as "-eyJ-eyJ-eyJ…" stay linear: a regular
// expression engine would rescan the run from every candidate.
type matcher struct {
	s string
	// runs caches, per character class, the last maximal run computed:
	// every offset in [start, end] has its run end at end.
	runs [2]struct{ start, end int }
	// tails caches, per character class, the last boundary search: for the
	// run ending at end, the greatest offset >= lo where `\b` holds, or -1.
	tails [2]struct{ lo, end, last int }
	// jwt caches the outcome for the last first-segment end seen.
	jwtSeg1, jwtEnd int
}

const (
	classSlack = iota // [A-Za-z0-9-]
	classJWT          // [A-Za-z0-9_-]
)

func inClass(class int, c byte) bool {
	return isAlnum(c) || c == '-' || (class == classJWT && c == '_')
}

func newMatcher(s string) *matcher {
	m := &matcher{s: s, jwtSeg1: -1}
	for i := range m.runs {
		m.runs[i].start, m.runs[i].end = -1, -1
	}
	for i := range m.tails {
		m.tails[i].lo, m.tails[i].end = -1, -1
	}
	return m
}

// run returns the end of the maximal run of class characters from i.
func (m *matcher) run(class, i int) int {
	r := &m.runs[class]
	if i >= r.start && i <= r.end && r.start >= 0 {
		return r.end
	}
	e := i
	for e < len(m.s) && inClass(class, m.s[e]) {
		e++
	}
	r.start, r.end = i, e
	return e
}

// lastBoundary returns the greatest k in [lo, end] where `\b` holds, for a
// run of class characters that starts before lo-1 and ends at end, or -1.
// Inside the run a character is a word character unless it is '-'; the
// character at end lies outside the run and is judged with Unicode rules.
//
// Candidates are tried left to right, so lo only grows while the run stays
// the same: each run is searched once from its end, and later candidates in
// it reuse the answer.
func (m *matcher) lastBoundary(class, lo, end int) int {
	t := &m.tails[class]
	if t.end != end || t.lo < 0 || lo < t.lo {
		t.lo, t.end, t.last = lo, end, -1
		for k := end; k >= lo; k-- {
			if m.boundaryInRun(k, end) {
				t.last = k
				break
			}
		}
	}
	if t.last >= lo {
		return t.last
	}
	return -1
}

func (m *matcher) boundaryInRun(k, end int) bool {
	before := m.s[k-1] != '-'
	if k == end {
		return before != wordAt(m.s, k)
	}
	return before != (m.s[k] != '-')
}

// find returns every match of rule in s, left to right and non-overlapping,
// as Python's finditer does.
func (m *matcher) find(rule *secretRule, out []span) []span {
	s := m.s
	for i := 0; i < len(s); {
		// Occurrences of the prefix without the key byte at keyAt cannot
		// match, so only those with it are tried (see key).
		j := strings.IndexByte(s[min(i+rule.keyAt, len(s)):], rule.key)
		if j < 0 {
			break
		}
		pos := i + j
		if !strings.HasPrefix(s[pos:], rule.prefix) {
			i = pos + 1
			continue
		}
		if !rule.wordStart || !wordBefore(s, pos) {
			if end := rule.match(m, pos); end >= 0 {
				out = append(out, span{rule: rule, start: pos, end: end})
				i = end
				continue
			}
		}
		i = pos + 1
	}
	return out
}

func (m *matcher) openAI(i int) int {
	j := i + len("sk-")
	e := j
	for e < len(m.s) && isAlnum(m.s[e]) {
		e++
	}
	// A shorter repetition would end between two alphanumerics, where no
	// boundary exists, so only the greedy end can match.
	if e-j < 20 || wordAt(m.s, e) {
		return -1
	}
	return e
}

func (m *matcher) gitHub(i int) int {
	s := m.s
	end := i + 4 + 36
	if end > len(s) || !strings.ContainsRune("pousr", rune(s[i+2])) || s[i+3] != '_' {
		return -1
	}
	for k := i + 4; k < end; k++ {
		if !isAlnum(s[k]) {
			return -1
		}
	}
	if wordAt(s, end) {
		return -1
	}
	return end
}

func (m *matcher) aws(i int) int {
	s := m.s
	end := i + 4 + 16
	if end > len(s) {
		return -1
	}
	for k := i + 4; k < end; k++ {
		if c := s[k]; !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return -1
		}
	}
	if wordAt(s, end) {
		return -1
	}
	return end
}

func (m *matcher) slack(i int) int {
	s := m.s
	j := i + 5
	if j > len(s) || !strings.ContainsRune("baprs", rune(s[i+3])) || s[i+4] != '-' {
		return -1
	}
	e := m.run(classSlack, j)
	if e-j < 10 {
		return -1
	}
	// The greedy repetition backs off until `\b` holds.
	return m.lastBoundary(classSlack, j+10, e)
}

// privKeyKinds are the optional key kinds, in the pattern's alternation order.
var privKeyKinds = []string{"RSA ", "EC ", "OPENSSH ", "DSA ", "PGP "}

func (m *matcher) privKey(i int) int {
	const tail = "PRIVATE KEY-----"
	rest := m.s[i+len("-----BEGIN "):]
	for _, k := range privKeyKinds {
		if strings.HasPrefix(rest, k) && strings.HasPrefix(rest[len(k):], tail) {
			return i + len("-----BEGIN ") + len(k) + len(tail)
		}
	}
	if strings.HasPrefix(rest, tail) {
		return i + len("-----BEGIN ") + len(tail)
	}
	return -1
}

func (m *matcher) jwt(i int) int {
	j := i + len("eyJ")
	e1 := m.run(classJWT, j)
	if e1-j < 10 {
		return -1
	}
	// Everything after the first segment depends only on where it ends.
	if e1 == m.jwtSeg1 {
		return m.jwtEnd
	}
	m.jwtSeg1, m.jwtEnd = e1, m.jwtRest(e1)
	return m.jwtEnd
}

func (m *matcher) jwtRest(e1 int) int {
	s := m.s
	// '.' is outside the class, so the first two repetitions cannot back
	// off: each must run right up to its dot.
	if e1 >= len(s) || s[e1] != '.' {
		return -1
	}
	j2 := e1 + 1
	e2 := j2
	for e2 < len(s) && inClass(classJWT, s[e2]) {
		e2++
	}
	if e2-j2 < 10 || e2 >= len(s) || s[e2] != '.' {
		return -1
	}
	j3 := e2 + 1
	e3 := j3
	for e3 < len(s) && inClass(classJWT, s[e3]) {
		e3++
	}
	if e3-j3 < 10 {
		return -1
	}
	return m.lastBoundary(classJWT, j3+10, e3)
}
