// modern-server.mjs is an MCP server built on the official TypeScript SDK 2.x
// (@modelcontextprotocol/server, pinned in package-lock.json), the kind of
// server that speaks the 2026-07-28 revision. warden's capture tests launch
// it to prove that a modern server pins and re-checks, in both eras where the
// server offers both.
//
// Usage:
//
//	node modern-server.mjs [-mode strict|dual] [-http ADDR]
//
// -mode strict serves only the 2026-07-28 revision (legacy: 'reject');
// -mode dual (the default) also serves 2025-era clients (legacy: 'serve' on
// stdio, 'stateless' on HTTP). Without -http the server speaks stdio. With
// -http HOST:PORT it serves streamable HTTP at /mcp, prints the endpoint URL
// as its first stdout line and exits when its stdin closes (the convention of
// internal/testserver.StartHTTP).
//
// The surface is chosen to show what differs between eras: the tool
// "numbers" has an array outputSchema, which the SDK sends as is to modern
// clients and wraps in an object for 2025-era ones.
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createServer } from 'node:http';
import * as z from 'zod-v4';

function parseArgs(argv) {
  const opts = { mode: 'dual', http: '' };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--?/, '');
    const value = argv[i + 1];
    if ((name === 'mode' || name === 'http') && value !== undefined) {
      opts[name] = value;
      i++;
    } else {
      throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  if (opts.mode !== 'strict' && opts.mode !== 'dual') {
    throw new Error(`-mode must be strict or dual, not ${opts.mode}`);
  }
  return opts;
}

function factory() {
  const server = new McpServer(
    { name: 'warden-modern-fixture', version: '1.0.0', title: 'Modern fixture' },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: 'A fixture for warden.' },
  );
  server.registerTool('echo', {
    title: 'Echo',
    description: 'Echo a message back',
    inputSchema: z.object({ message: z.string().describe('text to echo') }),
    annotations: { readOnlyHint: true, openWorldHint: false },
    _meta: { 'com.example/owner': 'fixture' },
  }, async ({ message }) => ({ content: [{ type: 'text', text: message }] }));
  server.registerTool('read_file', {
    description: 'Read a file from the workspace',
    inputSchema: z.object({ path: z.string(), limit: z.number().int().min(1).max(1000).optional() }),
    outputSchema: z.object({ text: z.string() }),
  }, async () => ({ content: [{ type: 'text', text: '' }], structuredContent: { text: '' } }));
  server.registerTool('numbers', {
    description: 'Returns a list of numbers',
    inputSchema: z.object({}),
    outputSchema: z.array(z.number()),
  }, async () => ({ content: [{ type: 'text', text: '[1]' }], structuredContent: [1] }));
  server.registerResource('readme', 'file:///readme.md',
    { title: 'README', description: 'The readme', mimeType: 'text/markdown' },
    async (uri) => ({ contents: [{ uri: uri.href, text: '# fixture' }] }));
  server.registerPrompt('greet', {
    title: 'Greeting',
    description: 'Greets someone',
    argsSchema: z.object({ who: z.string().describe('name') }),
  }, ({ who }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }] }));
  return server;
}

const opts = parseArgs(process.argv.slice(2));
if (opts.http === '') {
  serveStdio(factory, { legacy: opts.mode === 'strict' ? 'reject' : 'serve' });
} else {
  const [host, port] = [opts.http.slice(0, opts.http.lastIndexOf(':')), Number(opts.http.slice(opts.http.lastIndexOf(':') + 1))];
  const handler = toNodeHandler(createMcpHandler(factory, { legacy: opts.mode === 'strict' ? 'reject' : 'stateless' }));
  const srv = createServer((req, res) => {
    if (new URL(req.url, 'http://x').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    handler(req, res);
  });
  srv.listen(port, host, () => {
    process.stdout.write(`http://${host}:${srv.address().port}/mcp\n`);
  });
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
