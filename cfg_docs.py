import sys; sys.path.insert(0,'/tmp/mine')
from apply import rep
def action_yml(s):
    return rep(s,'''  headers:''','''  config:
    description: >-
      An MCP client config to check (or pin) every server of, each against its
      own <name>.warden.lock beside the config: .mcp.json (Claude Code,
      Cursor, Claude Desktop: {"mcpServers": ...}) or VS Code's
      .vscode/mcp.json ({"servers": ...}, JSONC). Relative to
      working-directory. Give exactly one of config, server-cmd and
      server-url. Variables (${NAME}, ${env:NAME}) are read from the step's
      env: and never written to a lock or report; see docs/config.md.
    required: false
    default: ""
  servers:
    description: >-
      With config: only these servers, one name per line (default: all).
    required: false
    default: ""
  headers:''')
def action_md(s):
    return rep(s,'''| `headers` |''','''| `config` | | An MCP client config (`.mcp.json`, `.cursor/mcp.json`, VS Code's `.vscode/mcp.json`), relative to `working-directory`: every server in it is checked (or pinned) against its own `<name>.warden.lock` beside the config, in one step. Give exactly one of `config`, `server-cmd` and `server-url`; `headers`, `env` and `lock` do not apply (the config says how to reach each server). Variables in the config (`${NAME}`, `${env:NAME}`) come from the step's `env:` and are never written to a lock or a report. One SARIF run per server (category `warden/<name>/`), annotations on each lock, a summary row per server, the worst exit code; `overall-digest` is empty. See [config.md](config.md). |
| `servers` | | With `config`: only these servers, one name per line. |
| `headers` |''')
def readme(s):
    return rep(s,'''warden diff old.lock new.lock           # offline; --json, --sarif PATH, --exit-code''','''warden check --config .mcp.json         # every server of a client config, one lock each (docs/config.md)
warden diff old.lock new.lock           # offline; --json, --sarif PATH, --exit-code''')
for p,f in [('action.yml',action_yml),('docs/action.md',action_md),('README.md',readme)]:
    src=open(p).read(); out=f(src); open(p,'w').write(out)
