package findings

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wardenlock/warden/internal/caps"
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/surface"
)

// vendorShape is each vendor pattern without its `\b` anchors: whatever the
// scanner reports must at least have this shape.
var vendorShape = map[string]*regexp.Regexp{
	RuleSecOpenAI:  regexp.MustCompile(`^sk-[A-Za-z0-9]{20,}$`),
	RuleSecGitHub:  regexp.MustCompile(`^gh[pousr]_[A-Za-z0-9]{36}$`),
	RuleSecAWS:     regexp.MustCompile(`^AKIA[0-9A-Z]{16}$`),
	RuleSecSlack:   regexp.MustCompile(`^xox[baprs]-[A-Za-z0-9-]{10,}$`),
	RuleSecPrivKey: regexp.MustCompile(`^-----BEGIN (RSA |EC |OPENSSH |DSA |PGP )?PRIVATE KEY-----$`),
	RuleSecJWT:     regexp.MustCompile(`^eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}$`),
}

func FuzzScanField(f *testing.F) {
	for _, s := range []string{
		"", fakeOpenAI, fakeGitHub, fakeAWS, fakeSlack, fakePrivKey, fakeJWT, fakeEntropy,
		"xoxp-abcdefghij-kλ", "-eyJ-eyJ-eyJabcdefghij.abcdefghij.abcdefghij",
		fakeEntropy + " " + fakeEntropy[3:] + " xx" + fakeEntropy, "sk-aaaaaaaaaaaaaaaaaaaa1é",
		"0123456789abcdef0123456789abcdef", "\xff\xfe sk-aaaaaaaaaaaaaaaaaaaa1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		spans := vendorSpans(value)
		if want := vendorSpansByPrefix(value); !slices.Equal(spans, want) {
			t.Fatalf("vendorSpans(%q) = %v, the prefix search finds %v", value, spans, want)
		}
		for _, sp := range spans {
			if text := value[sp.start:sp.end]; !vendorShape[sp.rule.id].MatchString(text) {
				t.Fatalf("%s matched %q, which does not have the pattern's shape", sp.rule.id, text)
			}
		}
		got := ScanField(value, "t")
		if len(got) != len(spans)+len(entropyHits(value, spans)) {
			t.Fatalf("ScanField(%q) gave %d findings for %d vendor matches", value, len(got), len(spans))
		}
		for _, fd := range got {
			if fd.Target != "t" || !strings.Contains(fd.Snippet, "…(len") {
				t.Fatalf("ScanField(%q): malformed finding %v", value, fd)
			}
		}
		// appendField, which scanTool uses, appends the same findings.
		prior := []lock.Finding{{RuleID: "prior"}}
		if app := appendField(slices.Clip(prior), value, "t"); !slices.Equal(app, append(slices.Clip(prior), got...)) {
			t.Fatalf("appendField(%q) = %v, ScanField gives %v", value, app[1:], got)
		}
		// The containment index must agree with the pairwise definition.
		if len(value) <= 4096 {
			if a, b := entropyHits(value, spans), naiveEntropyHits(value, spans); !slices.Equal(a, b) {
				t.Fatalf("entropyHits(%q) = %q, pairwise definition gives %q", value, a, b)
			}
		}
		// Masking leaves nothing a vendor pattern recognises.
		if utf8.ValidString(value) {
			if rest := vendorSpans(maskVendorSecrets(value)); len(rest) > 0 {
				t.Fatalf("maskVendorSecrets(%q) still holds a %s match", value, rest[0].rule.id)
			}
		}
	})
}

// referenceSupplyChain is SupplyChain without its shortcut: every
// package-manager position is examined, and the result is de-duplicated
// afterwards the way Scan does it.
func referenceSupplyChain(argv []string) []lock.Finding {
	var out []lock.Finding
	joined := strings.Join(argv, " ")
	if (strings.Contains(joined, "curl") || strings.Contains(joined, "wget")) && pipesToInterpreter(joined) {
		out = append(out, sup(RuleSupCurlPipe, msgCurlPipe, firstRunes(maskVendorSecrets(joined), curlPipeSnippetLen)))
	}
	for i, tok := range argv {
		manager := caps.Lower(tok)
		from := i
		switch manager {
		case "npx", "uvx":
		case "pip", "pip3":
			manager = "pip"
			k := slices.Index(argv[i:], "install")
			if k < 0 {
				continue
			}
			from = i + k
		default:
			continue
		}
		for _, spec := range argv[from+1:] {
			if strings.HasPrefix(spec, "-") || isLocalPath(spec) {
				continue
			}
			snippet := maskVendorSecrets(spec)
			switch {
			case strings.HasSuffix(spec, "@latest") || strings.HasSuffix(spec, "==latest"):
				out = append(out, latest(manager, snippet))
			case manager == "npx" && !npxPinned(spec):
				out = append(out, sup(RuleSupNPXUnpinned, msgNPX, snippet))
			case manager == "uvx" && !slices.Contains(argv, "--require-hashes") && !pythonPinned(spec):
				out = append(out, sup(RuleSupUVXUnpinned, msgUVX, snippet))
			case manager == "pip" && !slices.Contains(argv, "--require-hashes") && !pythonPinned(spec):
				out = append(out, sup(RuleSupPIPUnpinned, msgPIP, snippet))
			}
		}
	}
	var dedup []lock.Finding
	for _, fd := range out {
		if !slices.ContainsFunc(dedup, func(g lock.Finding) bool { return g.RuleID == fd.RuleID && g.Snippet == fd.Snippet }) {
			dedup = append(dedup, fd)
		}
	}
	return dedup
}

func FuzzSupplyChain(f *testing.F) {
	for _, s := range []string{
		"npx\x00-y\x00@modelcontextprotocol/server-memory",
		"uvx\x00npx\x00a@latest\x00uvx\x00b@latest",
		"pip\x00x\x00pip3\x00install\x00req==1\x00--require-hashes",
		"sh\x00-c\x00curl https://x | python3",
		"NPX\x00pkg@1\n\x00pkg@sha256:ab\x00pkg@١",
		"uvx\x00git+https://x@0123456789abcdef0123456789abcdef01234567",
		"npx\x00" + fakeOpenAI,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, packed string) {
		argv := strings.Split(packed, "\x00")
		if len(argv) > 64 {
			argv = argv[:64] // keep the quadratic reference cheap
		}
		got := SupplyChain(argv)
		for _, fd := range got {
			if fd.Target != TargetLaunch || !strings.HasPrefix(fd.RuleID, "WRD-SUP-") || fd.Message == "" {
				t.Fatalf("SupplyChain(%q): malformed finding %v", argv, fd)
			}
		}
		if want := referenceSupplyChain(argv); !slices.Equal(got, want) {
			t.Fatalf("SupplyChain(%q)\n got  %v\n want %v", argv, got, want)
		}
	})
}

func FuzzScan(f *testing.F) {
	f.Add(`{"command":"npx","args":["-y","pkg"],"tools":[{"name":"read_file","description":"sk-aaaaaaaaaaaaaaaaaaaa1","inputSchema":{"properties":{"path":{"default":"x"}}}}],"resources":[{"uri":"file:///x","name":"n"}],"prompts":[{"name":"p"}]}`)
	f.Add(`{"url":"https://x","tools":[{"name":"t","inputSchema":[1]}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		v, err := jsonv.Parse([]byte(text), jsonv.Options{})
		if err != nil {
			return
		}
		s, err := surface.FromVector(v)
		if err != nil {
			return
		}
		got := Scan(s)
		for i := 1; i < len(got); i++ {
			a, b := got[i-1], got[i]
			if a.Target > b.Target || a.Target == b.Target && (a.RuleID > b.RuleID || a.RuleID == b.RuleID && a.Snippet >= b.Snippet) {
				t.Fatalf("findings out of order or repeated: %v then %v", a, b)
			}
		}
	})
}
