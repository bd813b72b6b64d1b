package findings

import (
	"strings"
	"testing"
)

func TestRedactSecrets(t *testing.T) {
	openai := "sk-" + strings.Repeat("A1b2C3d4", 6)
	ghp := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	entropy := "Zq8Xw3Lp0Vt6Ry2Nb9Mk4Hs7Jd1Fg5Ca"
	tests := []struct {
		name, in string
		gone     []string // must not appear in the output
		kept     string   // must appear in the output
	}{
		{"plain argument", "--port=8080", nil, "--port=8080"},
		{"package spec", "@modelcontextprotocol/server-memory@2026.1.26", nil, "@modelcontextprotocol/server-memory@2026.1.26"},
		{"empty", "", nil, ""},
		{"openai key", "--api-key=" + openai, []string{openai}, "--api-key=" + Redact(openai)},
		{"github token inside text", "token " + ghp + " end", []string{ghp}, " end"},
		{"high-entropy token", "--secret " + entropy, []string{entropy}, Redact(entropy)},
		{"generated path kept", "/tmp/warden-testserver/pid9457-463863784/testdata_demo_server", nil, "/tmp/warden-testserver/pid9457-463863784/testdata_demo_server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RedactSecrets(tt.in)
			for _, g := range tt.gone {
				if strings.Contains(got, g) {
					t.Errorf("RedactSecrets(%q) = %q still holds %q", tt.in, got, g)
				}
			}
			if !strings.Contains(got, tt.kept) {
				t.Errorf("RedactSecrets(%q) = %q, want it to contain %q", tt.in, got, tt.kept)
			}
			if len(tt.gone) == 0 && got != tt.in {
				t.Errorf("RedactSecrets(%q) = %q, want it unchanged", tt.in, got)
			}
		})
	}
}
