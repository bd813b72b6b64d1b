// Command server is the small, friendly MCP server used by warden's README
// demo and by the GitHub Action's self-test. It is built on the official Go
// SDK and speaks MCP over stdio; it exits when stdin closes.
//
// Its surface is fixed and deterministic (no clocks, no randomness, no
// environment), so that "warden lock" against it produces the same lock file
// on every machine, and "warden check" is clean until -mutate is given.
//
// With -mutate it drifts the way a compromised or careless update would:
// it adds a destructive tool (delete_note) and widens the units enum of
// get_weather with a new value. The Action's self-test uses that to show a
// failing check.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	mutate := flag.Bool("mutate", false, "declare the drifted surface (adds delete_note, widens get_weather.units)")
	flag.Parse()

	// DEMO_MUTATE=1 drifts the surface without changing argv, the way a
	// rug-pull looks to warden: same launch, different declarations.
	s := newServer(*mutate || os.Getenv("DEMO_MUTATE") == "1")
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		log.Fatalf("demo server: %v", err)
	}
}

// The schemas are raw JSON so that what the README shows and what warden
// locks are literally the same bytes.
const (
	weatherSchema = `{
		"type": "object",
		"properties": {
			"city": {"type": "string", "description": "City name, e.g. \"Lisbon\"."},
			"units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"}
		},
		"required": ["city"]
	}`

	// weatherSchemaMutated adds "kelvin" to units: an enum widened behind
	// the user's back is exactly what warden's check reports.
	weatherSchemaMutated = `{
		"type": "object",
		"properties": {
			"city": {"type": "string", "description": "City name, e.g. \"Lisbon\"."},
			"units": {"type": "string", "enum": ["metric", "imperial", "kelvin"], "default": "metric"}
		},
		"required": ["city"]
	}`

	searchSchema = `{
		"type": "object",
		"properties": {"query": {"type": "string", "maxLength": 256}},
		"required": ["query"]
	}`

	noteSchema = `{
		"type": "object",
		"properties": {
			"title": {"type": "string", "maxLength": 120},
			"body": {"type": "string"}
		},
		"required": ["title", "body"]
	}`

	deleteSchema = `{
		"type": "object",
		"properties": {"id": {"type": "string"}},
		"required": ["id"]
	}`
)

func newServer(mutate bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "warden-demo", Version: "0.1.0"}, nil)

	weather := weatherSchema
	if mutate {
		weather = weatherSchemaMutated
	}
	s.AddTool(&mcp.Tool{
		Name:        "get_weather",
		Description: "Get the current weather for a city.",
		InputSchema: json.RawMessage(weather),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, text("Sunny, 21°."))
	s.AddTool(&mcp.Tool{
		Name:        "search_docs",
		Description: "Search the project documentation.",
		InputSchema: json.RawMessage(searchSchema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, text("No results."))
	s.AddTool(&mcp.Tool{
		Name:        "create_note",
		Description: "Save a note with a title and a body.",
		InputSchema: json.RawMessage(noteSchema),
	}, text("Saved."))
	if mutate {
		destructive := true
		s.AddTool(&mcp.Tool{
			Name:        "delete_note",
			Description: "Delete a note by id.",
			InputSchema: json.RawMessage(deleteSchema),
			Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive},
		}, text("Deleted."))
	}

	s.AddResource(&mcp.Resource{
		URI:         "notes://index",
		Name:        "notes-index",
		Description: "Titles of all saved notes.",
		MIMEType:    "text/plain",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "text/plain", Text: "(no notes yet)\n",
		}}}, nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name:        "daily_briefing",
		Description: "Write a short morning briefing for a city.",
		Arguments: []*mcp.PromptArgument{
			{Name: "city", Description: "City to brief on.", Required: true},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
			Role:    "user",
			Content: &mcp.TextContent{Text: "Write a morning briefing for " + req.Params.Arguments["city"] + "."},
		}}}, nil
	})
	return s
}

// text returns a tool handler that always answers msg: the demo is about
// what the server declares, not what its tools do.
func text(msg string) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}}, nil
	}
}
