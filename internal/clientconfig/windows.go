package clientconfig

import (
	"fmt"
	"strings"
)

// windowsLaunch lets a config written on Windows run elsewhere. There an
// npx server is often launched as "cmd /c npx ...", since npx is a .cmd
// script that only cmd runs; on another system there is no cmd, so the
// inner command is launched instead and LaunchNote says so. Argv stays as
// written: a lock pinned on Windows and one pinned on Linux from the same
// config are the same. An inner command that only cmd can run (a builtin,
// a .bat or .cmd script) or that asks cmd to interpret its line is
// refused by name.
func (s *Server) windowsLaunch(goos string) error {
	if goos == "windows" || len(s.LaunchArgv) == 0 || !isCmd(s.LaunchArgv[0]) {
		return nil
	}
	i := 1
	for i < len(s.LaunchArgv) && isCmdSwitch(s.LaunchArgv[i]) {
		i++
	}
	if i >= len(s.LaunchArgv) || !strings.EqualFold(s.LaunchArgv[i], "/c") {
		return fmt.Errorf("runs %s without /c: only cmd /c COMMAND ... can run off Windows", quote(strings.Join(s.Argv, " ")))
	}
	inner := s.LaunchArgv[i+1:]
	if len(inner) == 0 {
		return fmt.Errorf("runs %s with no command after /c", quote(s.Argv[0]))
	}
	if err := checkInner(inner); err != nil {
		return fmt.Errorf("runs %s through cmd: %w, which only Windows can run", quote(strings.Join(s.Argv[i+1:], " ")), err)
	}
	written := strings.Join(s.Argv[:i+1], " ")
	s.LaunchNote = fmt.Sprintf("runs %s without %s (a Windows launch, on a %s runner)", quote(strings.Join(s.Argv[i+1:], " ")), quote(written), goos)
	s.LaunchArgv = append([]string(nil), inner...)
	return nil
}

// isCmd reports whether a command names cmd.exe, in any case, with or
// without a path of either separator.
func isCmd(command string) bool {
	base := command[strings.LastIndexAny(command, `/\`)+1:]
	base = strings.ToLower(base)
	return base == "cmd" || base == "cmd.exe"
}

// isCmdSwitch reports whether a is a switch cmd takes before /c that
// changes nothing off Windows: /d (no AutoRun), /s (quote handling), /q
// (no echo).
func isCmdSwitch(a string) bool {
	switch strings.ToLower(a) {
	case "/d", "/s", "/q":
		return true
	}
	return false
}

// checkInner refuses an inner command line that needs cmd itself.
func checkInner(inner []string) error {
	command := inner[0]
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	if strings.HasSuffix(base, ".bat") || strings.HasSuffix(base, ".cmd") {
		return fmt.Errorf("%s is a batch script", quote(command))
	}
	if cmdBuiltin(base) || isCmd(base) {
		return fmt.Errorf("%s is a command of cmd itself", quote(command))
	}
	for _, a := range inner {
		if strings.ContainsAny(a, "&|<>^") {
			return fmt.Errorf("%s holds characters cmd interprets (& | < > ^)", quote(a))
		}
		if strings.Count(a, "%") >= 2 {
			return fmt.Errorf("%s holds a %%VARIABLE%% cmd expands", quote(a))
		}
	}
	return nil
}

// cmdBuiltin reports whether name (lower case) is built into cmd.exe.
func cmdBuiltin(name string) bool {
	switch strings.TrimSuffix(name, ".") {
	case "assoc", "break", "call", "cd", "chdir", "cls", "color", "copy", "date", "del", "dir",
		"echo", "endlocal", "erase", "exit", "for", "ftype", "goto", "if", "md", "mkdir", "mklink",
		"move", "path", "pause", "popd", "prompt", "pushd", "rd", "rem", "ren", "rename", "rmdir",
		"set", "setlocal", "shift", "start", "time", "title", "type", "ver", "verify", "vol":
		return true
	}
	return false
}
