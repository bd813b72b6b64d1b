import sys; sys.path.insert(0,'/tmp/mine')
from apply import *
def edits(s):
    s=rep(s,'''	// Argv is the stdio launch; URL the HTTP endpoint. Exactly one is set.
	Argv []string
	URL  string''','''	// Argv is the stdio launch; URL the HTTP endpoint; Config a client
	// config whose servers are all captured (Servers selects some).
	// Exactly one of Argv, URL and Config is set.
	Argv    []string
	URL     string
	Config  string
	Servers []string''')
    s=rep(s,'''	cmd, url := strings.TrimSpace(get("server-cmd")), strings.TrimSpace(get("server-url"))
	switch {
	case cmd != "" && url != "":
		return in, errors.New("inputs server-cmd and server-url: give exactly one, not both")
	case cmd == "" && url == "":
		return in, errors.New("inputs server-cmd and server-url: give exactly one (a command to launch, or the URL of a running server)")
	case cmd != "":''','''	cmd, url := strings.TrimSpace(get("server-cmd")), strings.TrimSpace(get("server-url"))
	in.Config = strings.TrimSpace(get("config"))
	switch {
	case in.Config != "" && (cmd != "" || url != ""):
		return in, errors.New("inputs config, server-cmd and server-url: give exactly one (config captures every server of a client config)")
	case cmd != "" && url != "":
		return in, errors.New("inputs server-cmd and server-url: give exactly one, not both")
	case in.Config != "":
		if err := noControl("config", in.Config); err != nil {
			return in, err
		}
	case cmd == "" && url == "":
		return in, errors.New("inputs server-cmd and server-url: give exactly one (a command to launch, or the URL of a running server), or config")
	case cmd != "":''')
    s=rep(s,'''	var err error
	if in.Headers, err = ParseHeaders(get("headers")); err != nil {
		return in, err
	}''','''	for _, line := range strings.Split(get("servers"), "\\n") {
		if name := strings.TrimSpace(line); name != "" {
			in.Servers = append(in.Servers, name)
		}
	}
	if len(in.Servers) > 0 && in.Config == "" {
		return in, errors.New("input servers: only used with config")
	}
	var err error
	if in.Headers, err = ParseHeaders(get("headers")); err != nil {
		return in, err
	}
	if in.Config != "" && (len(in.Headers) > 0 || strings.TrimSpace(get("env")) != "") {
		return in, errors.New("inputs headers and env: not used with config (the config says how to reach each server)")
	}''')
    return s
p='internal/action/inputs.go'
src=open(p).read(); out=edits(src); open(p,"w").write(out)
