package reporttest

import (
	"strings"
	"unicode"
)

// RunnerCommand is one workflow command the Actions runner would execute.
type RunnerCommand struct {
	// Name is the command name as written (the runner matches it without
	// regard to case).
	Name string
	// Data is the text after the command's properties, not unescaped.
	Data string
	// Legacy is true for the "##[name]" syntax.
	Legacy bool
	// Line is the log line it came from.
	Line string
}

// runnerCommands returns the command names the runner registers
// (ActionCommandManager), stop-commands included.
func runnerCommands() []string {
	return []string{
		"add-mask", "add-matcher", "remove-matcher", "add-path", "debug", "echo", "endgroup", "error",
		"group", "internal-set-repo-path", "notice", "save-state", "set-env", "set-output", "stop-commands", "warning",
	}
}

// RunnerCommands returns the workflow commands the Actions runner would
// execute from the text of one output stream of a step, following its
// parsers (ActionCommand.TryParseV2, then the legacy TryParse, with
// ordinal matching) and its stop-commands state: lines are split at "\n",
// "\r" and "\r\n"; a "::name ...::data" line counts after leading white
// space is trimmed; "##[name ...]data" counts anywhere in a line; while
// commands are stopped only the token resumes them. The stop and the
// resume are returned too.
func RunnerCommands(text string) []RunnerCommand {
	registered := map[string]bool{}
	for _, c := range runnerCommands() {
		registered[c] = true
	}
	var out []RunnerCommand
	stopToken := ""
	text = strings.ReplaceAll(text, "\r\n", "\n")
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		isRegistered := func(name string) bool {
			name = strings.ToLower(name)
			return registered[name] || (stopToken != "" && name == strings.ToLower(stopToken))
		}
		cmd, ok := parseV2(line, isRegistered)
		if !ok {
			cmd, ok = parseLegacy(line, isRegistered)
		}
		if !ok {
			continue
		}
		switch {
		case stopToken != "":
			if strings.EqualFold(cmd.Name, stopToken) {
				stopToken = ""
				out = append(out, cmd)
			}
		case strings.EqualFold(cmd.Name, "stop-commands"):
			stopToken = cmd.Data
			out = append(out, cmd)
		default:
			out = append(out, cmd)
		}
	}
	return out
}

// parseV2 follows ActionCommand.TryParseV2.
func parseV2(line string, registered func(string) bool) (RunnerCommand, bool) {
	msg := strings.TrimLeftFunc(line, unicode.IsSpace)
	if !strings.HasPrefix(msg, "::") {
		return RunnerCommand{}, false
	}
	end := strings.Index(msg[2:], "::")
	if end < 0 {
		return RunnerCommand{}, false
	}
	info := msg[2 : 2+end]
	name, _, _ := strings.Cut(info, " ")
	if !registered(name) {
		return RunnerCommand{}, false
	}
	return RunnerCommand{Name: name, Data: msg[2+end+2:], Line: line}, true
}

// parseLegacy follows ActionCommand.TryParse.
func parseLegacy(line string, registered func(string) bool) (RunnerCommand, bool) {
	start := strings.Index(line, "##[")
	if start < 0 {
		return RunnerCommand{}, false
	}
	rb := strings.IndexByte(line[start:], ']')
	if rb < 0 {
		return RunnerCommand{}, false
	}
	info := line[start+3 : start+rb]
	name, _, _ := strings.Cut(info, " ")
	if !registered(name) {
		return RunnerCommand{}, false
	}
	return RunnerCommand{Name: name, Data: line[start+rb+1:], Legacy: true, Line: line}, true
}

// Triggers returns every line of text that a runner could take for a
// workflow command, whatever command name follows: a line that starts with
// "::" once leading white space and invisible characters are skipped, or
// that holds "##[" anywhere. It is stricter than RunnerCommands (it needs
// no registered name, so it also covers a stop-commands token and names a
// future runner may add) and splits lines at U+0085, U+2028 and U+2029 as
// well as at "\n" and "\r".
func Triggers(text string) []string {
	var out []string
	isEnd := func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029'
	}
	for _, line := range strings.FieldsFunc(text, isEnd) {
		rest := strings.TrimLeftFunc(line, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsGraphic(r) })
		if strings.HasPrefix(rest, "::") || strings.Contains(line, "##[") {
			out = append(out, line)
		}
	}
	return out
}
