package clientconfig

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestWindowsLaunch parses the same Windows-authored config as on Windows
// and as on Linux: Argv (what a lock records) is the same both ways, and
// only the Linux launch drops "cmd /c".
func TestWindowsLaunch(t *testing.T) {
	const file = "testdata/windows/.mcp.json"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	parse := func(goos string) map[string]Server {
		env := testEnv()
		env.GOOS = goos
		c, err := ParseFile(file, data, env)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]Server{}
		for _, s := range c.Servers {
			out[s.Name] = s
		}
		return out
	}
	win, linux := parse("windows"), parse("linux")
	for _, tc := range []struct {
		name        string
		argv        []string
		linuxLaunch []string
		note        string
		linuxErr    string
	}{
		{name: "memory", argv: []string{"cmd", "/c", "npx", "-y", memoryPkg}, linuxLaunch: []string{"npx", "-y", memoryPkg},
			note: `runs "npx -y ` + memoryPkg + `" without "cmd /c" (a Windows launch, on a linux runner)`},
		{name: "exe", argv: []string{`C:\Windows\System32\CMD.EXE`, "/d", "/s", "/C", "node", "server.js"}, linuxLaunch: []string{"node", "server.js"},
			note: `runs "node server.js" without "C:\\Windows\\System32\\CMD.EXE /d /s /C" (a Windows launch, on a linux runner)`},
		{name: "script", argv: []string{"cmd", "/c", "run-server.bat"}, linuxErr: `"run-server.bat" is a batch script, which only Windows can run`},
		{name: "builtin", argv: []string{"cmd", "/c", "start", "node", "server.js"}, linuxErr: `"start" is a command of cmd itself`},
		{name: "piped", argv: []string{"cmd", "/c", "node", "server.js", "&", "echo"}, linuxErr: "characters cmd interprets"},
		{name: "keep", argv: []string{"cmd", "/k", "node"}, linuxErr: "without /c"},
		{name: "plain", argv: []string{"npx", "-y", "pkg"}, linuxLaunch: []string{"npx", "-y", "pkg"}},
	} {
		w, l := win[tc.name], linux[tc.name]
		if w.Err != nil || !reflect.DeepEqual(w.Argv, tc.argv) || !reflect.DeepEqual(w.LaunchArgv, tc.argv) || w.LaunchNote != "" {
			t.Errorf("%s on windows = %+v", tc.name, w)
		}
		if !reflect.DeepEqual(l.Argv, w.Argv) {
			t.Errorf("%s: Argv on linux %q differs from windows %q", tc.name, l.Argv, w.Argv)
		}
		if tc.linuxErr != "" {
			if l.Err == nil || !strings.Contains(l.Err.Error(), tc.linuxErr) {
				t.Errorf("%s on linux: err = %v, want %q", tc.name, l.Err, tc.linuxErr)
			}
			continue
		}
		if l.Err != nil || !reflect.DeepEqual(l.LaunchArgv, tc.linuxLaunch) || l.LaunchNote != tc.note {
			t.Errorf("%s on linux = err %v, launch %q, note %q; want %q, %q", tc.name, l.Err, l.LaunchArgv, l.LaunchNote, tc.linuxLaunch, tc.note)
		}
	}
}

// TestWindowsLaunchExpands: the inner command is the expanded one, the
// note and Argv the written one.
func TestWindowsLaunchExpands(t *testing.T) {
	env := testEnv()
	env.GOOS = "darwin"
	c, err := ParseFile(".mcp.json", []byte(`{"mcpServers": {"s": {"command": "cmd.exe", "args": ["/C", "node", "${HOME}/s.js"]}}}`), env)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Servers[0]
	if s.Err != nil || !reflect.DeepEqual(s.LaunchArgv, []string{"node", "/home/ci/s.js"}) ||
		!reflect.DeepEqual(s.Argv, []string{"cmd.exe", "/C", "node", "${HOME}/s.js"}) || !strings.Contains(s.LaunchNote, `"node ${HOME}/s.js"`) || !strings.Contains(s.LaunchNote, "darwin runner") {
		t.Errorf("server = %+v", s)
	}
}

func TestIsCmd(t *testing.T) {
	for in, want := range map[string]bool{
		"cmd": true, "CMD": true, "cmd.exe": true, "Cmd.Exe": true, `C:\Windows\system32\cmd.exe`: true, "/mnt/c/cmd.exe": true,
		"cmdx": false, "npx": false, "cmd.bat": false, "": false, `C:\cmd\node.exe`: false,
	} {
		if got := isCmd(in); got != want {
			t.Errorf("isCmd(%q) = %v", in, got)
		}
	}
}
