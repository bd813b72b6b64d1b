package ops

import (
	"strings"
	"testing"
)

// TestStoredURLError plays `pin --url` with credentials in the URL, which
// the lock would store verbatim in server.url. Each is refused with one
// line that names where the credential sits, never its value, and points
// to a header; URLs without one pass.
func TestStoredURLError(t *testing.T) {
	const openAI = "sk-abcdefghijklmnopqrstuvwxyz012345"
	const secret = "hunter2-very-secret"
	tests := []struct {
		name, url   string
		allowSecret bool
		want        string // empty: accepted
	}{
		{"plain", "https://mcp.example.com/mcp", false, ""},
		{"harmless query", "https://mcp.example.com/mcp?page=2&region=eu&debug", false, ""},
		{"placeholder", "https://mcp.example.com/mcp?api_key=${MCP_KEY}", false, ""},
		{"empty value", "https://mcp.example.com/mcp?token=", false, ""},
		{"user and password", "http://alice:" + secret + "@mcp.example.com/mcp", false, "user credentials (user:password@ before the host)"},
		{"user only", "http://" + secret + "@mcp.example.com/mcp", false, "user credentials"},
		{"userinfo even when allowed", "http://alice:" + secret + "@mcp.example.com/mcp", true, "user credentials"},
		{"api_key", "https://mcp.example.com/mcp?api_key=" + secret, false, `query parameter "api_key"`},
		{"upper case with hyphen", "https://mcp.example.com/mcp?x=1&API-Key=" + secret, false, `query parameter "API-Key"`},
		{"percent-encoded name", "https://mcp.example.com/mcp?access%5Ftoken=" + secret, false, `query parameter "access_token"`},
		{"suffix", "https://mcp.example.com/mcp?github_token=" + secret, false, `query parameter "github_token"`},
		{"password", "https://mcp.example.com/mcp?Password=" + secret, false, `query parameter "Password"`},
		{"vendor pattern under a harmless name", "https://mcp.example.com/mcp?q=" + openAI, false, `the value of query parameter "q" (WRD-SEC-OPENAI`},
		{"vendor pattern in the fragment", "https://mcp.example.com/mcp#" + openAI, false, "the fragment (WRD-SEC-OPENAI"},
		{"query allowed by the flag", "https://mcp.example.com/mcp?api_key=" + secret, true, ""},
		{"several", "https://mcp.example.com/mcp?token=" + secret + "&secret=" + secret, false, `query parameter "token", query parameter "secret"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := storedURLError(tc.url, tc.allowSecret)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || !strings.Contains(msg, "--header 'Authorization: Bearer ${TOKEN}'") || strings.Contains(msg, "\n") {
				t.Fatalf("error = %q, want one line with %q and the header hint", msg, tc.want)
			}
			for _, leak := range []string{secret, openAI, "alice"} {
				if strings.Contains(msg, leak) {
					t.Fatalf("the error echoes %q: %s", leak, msg)
				}
			}
		})
	}
}
