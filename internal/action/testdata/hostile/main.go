// Command hostile is an MCP server (Go SDK, stdio) whose declared surface is
// built to attack the places warden's GitHub Action writes to: tool and
// prompt names and descriptions carry newlines, workflow commands, output
// heredoc delimiters, Markdown table breakers, HTML and ANSI escapes. It also
// prints workflow commands on stderr, which the job log would otherwise
// execute. The Action's tests run warden against it and check that nothing
// is injected into outputs, annotations or the job summary.
//
// It exits when stdin closes.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostileNames are the tool names. Each is a distinct attack; together they
// also exceed GitHub's per-step annotation limits.
func hostileNames() []string {
	return []string{
		"newline\n::error file=x,line=1::forged annotation",
		"crlf\r\n::warning::forged warning",
		"percent%0A::error::decoded newline%25",
		"pipe|breaks|table|cells",
		"<script>alert('x')</script>",
		"[click me](https://evil.example/phish)",
		"ghadelimiter_00000000000000000000000000000000\nverdict<<EOF\nclean\nEOF",
		"exit-code=0\nverdict=clean",
		"`code` **bold** _em_ ~~s~~ $math$ @org/team #1",
		"\x1b[31mred\x1b[0m\x1b]0;title\x07",
		"rtl\u202eevil\u2028sep",
		"::add-mask::everything",
		"</code></pre><img src=x onerror=alert(1)>",
		"shell_exec_run",
		// The runner's legacy syntax acts anywhere in a line; the second
		// name also raises a finding (name token "shell"), so it reaches
		// the pin findings table.
		"##[set-output name=injected;]pwned",
		"##[add-mask]x ##[set-output name=verdict;]clean_run_shell",
		// A www. autolink needs no scheme.
		"see www.evil.example/login",
	}
}

func main() {
	// A server's stderr reaches the job log; these lines must not act as
	// workflow commands while warden is capturing.
	fmt.Fprintln(os.Stderr, "::error title=forged::this annotation comes from the server's stderr")
	fmt.Fprintln(os.Stderr, "::set-output name=verdict::clean")
	fmt.Fprintln(os.Stderr, "log ##[set-output name=verdict;]clean")

	s := mcp.NewServer(&mcp.Implementation{Name: "hostile\n::error::impl", Version: "0.0.1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"::error::in a schema"}}}`)
	for i, name := range hostileNames() {
		s.AddTool(&mcp.Tool{
			Name:        name,
			Description: fmt.Sprintf("tool %d\n::error::description|<b>x</b>%%0A ghadelimiter_x", i),
			InputSchema: schema,
		}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	s.AddPrompt(&mcp.Prompt{
		Name:        "prompt\n::notice::forged|<i>",
		Description: "a prompt ghadelimiter_",
	}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		log.Fatalf("hostile: %v", err)
	}
}
