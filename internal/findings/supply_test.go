package findings

import (
	"slices"
	"strings"
	"testing"

	"github.com/wardenlock/warden/internal/lock"
)

const (
	msgCurlPipe = "Launch reconstructs a remote-fetch-execute (curl|sh / wget|sh) shape"
	msgNPX      = "Unpinned npx package (resolves latest at run)"
	msgUVX      = "Unpinned uvx package (mutable upstream)"
	msgPIP      = "Unpinned pip install target (mutable dependency)"
)

func sup(rule, message, snippet string) lock.Finding {
	sev := High
	if rule == RuleSupCurlPipe {
		sev = Critical
	}
	return lock.Finding{RuleID: rule, Severity: sev, Target: TargetLaunch, Message: message, Snippet: snippet}
}

func latest(manager, spec string) lock.Finding {
	return sup(RuleSupLatestTag, "Explicit floating 'latest' tag in "+manager+" spec", spec)
}

func TestSupplyChain(t *testing.T) {
	long := "curl https://example.com/" + strings.Repeat("a", 120) + " | sh"
	tests := []struct {
		name string
		argv []string
		want []lock.Finding
	}{
		{"plain node", []string{"node", "./build/index.js"}, nil},
		{"empty argv", nil, nil},
		// npx: every later token that is neither a flag nor a local path is
		// a spec, server arguments included.
		{"npx unpinned", []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/tmp"},
			[]lock.Finding{sup(RuleSupNPXUnpinned, msgNPX, "@modelcontextprotocol/server-filesystem")}},
		{"npx server argument", []string{"npx", "pkg", "8080"},
			[]lock.Finding{sup(RuleSupNPXUnpinned, msgNPX, "pkg"), sup(RuleSupNPXUnpinned, msgNPX, "8080")}},
		{"npx pinned version", []string{"npx", "-y", "@modelcontextprotocol/server-memory@2025.4.25"}, nil},
		{"npx pinned prerelease", []string{"npx", "pkg@1.2.3-beta.1+build"}, nil},
		{"npx pinned digest colon", []string{"npx", "pkg@sha512:ABCdef0123"}, nil},
		{"npx pinned digest dash", []string{"npx", "pkg@sha512-ABCdef0123"}, nil},
		{"npx digest not hex", []string{"npx", "pkg@sha512:xyz"}, []lock.Finding{sup(RuleSupNPXUnpinned, msgNPX, "pkg@sha512:xyz")}},
		{"npx v-prefixed version", []string{"npx", "pkg@v1.2.3"}, []lock.Finding{sup(RuleSupNPXUnpinned, msgNPX, "pkg@v1.2.3")}},
		// Python's \d and \w are Unicode-aware.
		{"npx Arabic-Indic digits", []string{"npx", "pkg@١.٢"}, nil},
		{"npx version with a Unicode letter", []string{"npx", "pkg@1é"}, nil},
		// Python's $ also matches before one final newline, not two.
		{"npx trailing newline", []string{"npx", "pkg@1\n"}, nil},
		{"npx two trailing newlines", []string{"npx", "pkg@1\n\n"}, []lock.Finding{sup(RuleSupNPXUnpinned, msgNPX, "pkg@1\n\n")}},
		{"npx second at sign", []string{"npx", "pkg@1.0@beta"}, []lock.Finding{sup(RuleSupNPXUnpinned, msgNPX, "pkg@1.0@beta")}},
		{"npx latest", []string{"npx", "pkg@latest"}, []lock.Finding{latest("npx", "pkg@latest")}},
		{"local paths and flags", []string{"NPX", "./local", ".", "~/x", "file:../y", "../z", "/abs", "-y", "--package=foo"}, nil},
		// uvx and pip.
		{"uvx unpinned", []string{"uvx", "mcp-server-git"}, []lock.Finding{sup(RuleSupUVXUnpinned, msgUVX, "mcp-server-git")}},
		{"uvx pinned", []string{"uvx", "mcp-server-git==1.0"}, nil},
		{"uvx latest", []string{"uvx", "mcp-server-git@latest"}, []lock.Finding{latest("uvx", "mcp-server-git@latest")}},
		{"uvx ==latest", []string{"uvx", "mcp-server-git==latest"}, []lock.Finding{latest("uvx", "mcp-server-git==latest")}},
		{"uvx git commit", []string{"uvx", "git+https://github.com/o/r@0123456789abcdef0123456789abcdef01234567"}, nil},
		{"uvx git commit too long", []string{"uvx", "git+https://github.com/o/r@0123456789abcdef0123456789abcdef01234567x"},
			[]lock.Finding{sup(RuleSupUVXUnpinned, msgUVX, "git+https://github.com/o/r@0123456789abcdef0123456789abcdef01234567x")}},
		{"uvx git commit then a Unicode letter", []string{"uvx", "git+https://github.com/o/r@0123456789abcdef0123456789abcdef01234567é"},
			[]lock.Finding{sup(RuleSupUVXUnpinned, msgUVX, "git+https://github.com/o/r@0123456789abcdef0123456789abcdef01234567é")}},
		{"require-hashes pins everything", []string{"uvx", "--require-hashes", "pkg"}, nil},
		{"pip install", []string{"python", "-m", "pip", "install", "requests", "flask==2.0"}, []lock.Finding{sup(RuleSupPIPUnpinned, msgPIP, "requests")}},
		{"pip without install", []string{"pip3", "download", "requests"}, nil},
		{"pip specs follow install", []string{"pip", "requests", "install", "-r", "./req.txt", "x@latest"}, []lock.Finding{latest("pip", "x@latest")}},
		{"PIP upper case", []string{"PIP", "install", "requests"}, []lock.Finding{sup(RuleSupPIPUnpinned, msgPIP, "requests")}},
		// Python lower-cases İ to i + U+0307, so this is not "pip".
		{"dotted capital I", []string{"pİp", "install", "requests"}, nil},
		// The first manager to reach a spec names it in the message.
		{"latest seen by npx first", []string{"npx", "pkg@latest", "uvx", "pkg@latest"},
			[]lock.Finding{latest("npx", "pkg@latest"), sup(RuleSupNPXUnpinned, msgNPX, "uvx")}},
		{"manager token as a spec", []string{"uvx", "npx", "a@latest"},
			[]lock.Finding{sup(RuleSupUVXUnpinned, msgUVX, "npx"), latest("uvx", "a@latest")}},
		// curl | sh.
		{"curl pipe sh", []string{"sh", "-c", "curl -fsSL https://example.com/install.sh | sh"},
			[]lock.Finding{sup(RuleSupCurlPipe, msgCurlPipe, "sh -c curl -fsSL https://example.com/install.sh | sh")}},
		{"wget pipe python3", []string{"bash", "-c", "wget -qO- https://x.example | python3"},
			[]lock.Finding{sup(RuleSupCurlPipe, msgCurlPipe, "bash -c wget -qO- https://x.example | python3")}},
		{"no space before interpreter", []string{"bash", "-c", "curl https://x.example |python"},
			[]lock.Finding{sup(RuleSupCurlPipe, msgCurlPipe, "bash -c curl https://x.example |python")}},
		{"separate argv tokens", []string{"curl", "https://x", "|", "zsh"}, []lock.Finding{sup(RuleSupCurlPipe, msgCurlPipe, "curl https://x | zsh")}},
		{"python3x is not python", []string{"bash", "-c", "curl https://x.example | python3x"}, nil},
		{"shell is not sh", []string{"bash", "-c", "curl https://x.example | shell"}, nil},
		{"node_modules is not node", []string{"bash", "-c", "curl x | node_modules/bin"}, nil},
		{"Unicode digit ends no word", []string{"bash", "-c", "curl x | sh٣"}, nil},
		{"Unicode digit after python", []string{"bash", "-c", "curl x | python٣"}, []lock.Finding{sup(RuleSupCurlPipe, msgCurlPipe, "bash -c curl x | python٣")}},
		// Python's \s includes NBSP and the information separators.
		{"no-break space", []string{"bash", "-c", "curl x |\u00a0bash"}, []lock.Finding{sup(RuleSupCurlPipe, msgCurlPipe, "bash -c curl x |\u00a0bash")}},
		{"information separator", []string{"bash", "-c", "curl x |\x1cnode"}, []lock.Finding{sup(RuleSupCurlPipe, msgCurlPipe, "bash -c curl x |\x1cnode")}},
		{"no fetch", []string{"bash", "-c", "cat x | sh"}, nil},
		{"snippet is 120 code points", []string{"sh", "-c", long},
			[]lock.Finding{sup(RuleSupCurlPipe, msgCurlPipe, ("sh -c " + long)[:120])}},
		// Vendor-pattern secrets in echoed argv are redacted (SPEC §9).
		{"secret as npx argument", []string{"npx", "--key", fakeOpenAI}, []lock.Finding{sup(RuleSupNPXUnpinned, msgNPX, "sk-p…(len=27)")}},
		{"secret in curl pipe", []string{"sh", "-c", "curl -H 'Authorization: token " + fakeGitHub + "' https://x | sh"},
			[]lock.Finding{sup(RuleSupCurlPipe, msgCurlPipe, "sh -c curl -H 'Authorization: token ghp_…(len=40)' https://x | sh")}},
		// An entropy-only token keeps the reference's raw snippet: ordinary
		// package names trip that heuristic.
		{"entropic package name", []string{"npx", "@executeautomation/playwright-mcp-server"},
			[]lock.Finding{sup(RuleSupNPXUnpinned, msgNPX, "@executeautomation/playwright-mcp-server")}},
		// Repeated managers add nothing after de-duplication.
		{"repeated npx", []string{"npx", "a", "npx", "a"}, []lock.Finding{sup(RuleSupNPXUnpinned, msgNPX, "a"), sup(RuleSupNPXUnpinned, msgNPX, "npx")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SupplyChain(tc.argv)
			if !slices.Equal(got, tc.want) {
				t.Errorf("SupplyChain(%q)\n got  %v\n want %v", tc.argv, got, tc.want)
			}
		})
	}
}
