import sys; sys.path.insert(0,'/tmp/mine')
from apply import *
import importlib.util
def load(path):
    spec=importlib.util.spec_from_file_location("m", path); m=importlib.util.module_from_spec(spec)
    src=open(path).read().split("\np=")[0]  # only the edits function
    exec(compile(src, path, 'exec'), m.__dict__); return m
a=load('/tmp/mine/cfg_action.py'); i=load('/tmp/mine/cfg_inputs.py')
stage('internal/action/action.go', a.edits(head('internal/action/action.go')))
stage('internal/action/inputs.go', i.edits(head('internal/action/inputs.go')))
t=head('internal/action/inputs_test.go')
t=rep(t,'''		{"protocol unknown",''','''		{"config and server-cmd", map[string]string{"config": ".mcp.json", "server-cmd": "srv"}, nil, "give exactly one"},
		{"servers without config", map[string]string{"server-cmd": "srv", "servers": "a"}, nil, "input servers: only used with config"},
		{"headers with config", map[string]string{"config": ".mcp.json", "headers": "A: b"}, nil, "not used with config"},
		{"protocol unknown",''')
stage('internal/action/inputs_test.go', t)
