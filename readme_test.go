package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fencedBlocks returns the fenced code blocks of a Markdown file whose info
// string is lang, in order.
func fencedBlocks(t *testing.T, path, lang string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	re := regexp.MustCompile("(?ms)^```" + lang + "\n(.*?)^```")
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// TestReadmeFirstHour: what a newcomer copies from the README works as
// written: the install names this module, every command runs the installed
// `warden` (not a ./warden it never built), and the Action snippet is the
// one docs/action.md documents, with the permissions it needs and the SARIF
// uploaded only when the step wrote one.
func TestReadmeFirstHour(t *testing.T) {
	sh := strings.Join(fencedBlocks(t, "README.md", "sh"), "\n")
	if !strings.Contains(sh, "CGO_ENABLED=0 go install github.com/wardenlock/warden@latest") {
		t.Error("README does not install with CGO_ENABLED=0 go install github.com/wardenlock/warden@latest")
	}
	for _, line := range strings.Split(sh, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "./warden") {
			t.Errorf("README runs ./warden, which its install does not make: %q", line)
		}
	}
	for _, want := range []string{"warden pin --lock warden.lock --", "warden check --lock warden.lock --", "bash scripts/test.sh"} {
		if !strings.Contains(sh, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	readme := fencedBlocks(t, "README.md", "yaml")
	docs := fencedBlocks(t, "docs/action.md", "yaml")
	if len(readme) == 0 || len(docs) == 0 {
		t.Fatal("no Action snippet in README.md or docs/action.md")
	}
	if readme[0] != docs[0] {
		t.Errorf("the README's Action snippet differs from docs/action.md's:\n%s\n---\n%s", readme[0], docs[0])
	}
	for _, want := range []string{"security-events: write", "id: warden", "if: always() && steps.warden.outputs.sarif != ''", "sarif_file: ${{ steps.warden.outputs.sarif }}"} {
		if !strings.Contains(readme[0], want) {
			t.Errorf("the Action snippet lacks %q", want)
		}
	}
}

// goBuildCommand matches a go build or go install command: the words
// followed by an argument, so that prose naming `go install` is not one.
var goBuildCommand = regexp.MustCompile("go (build|install) +[^\\s`]")

// cgoOff matches the text before a command that sets CGO_ENABLED=0 for it:
// the assignment, then only other assignments, up to the command.
var cgoOff = regexp.MustCompile("(^|[\\s(;&|`])CGO_ENABLED=0\\s(\\S+=\\S*\\s+)*$")

// staticBuildMisses returns the go build and go install commands in text
// that do not set CGO_ENABLED=0 in their own environment, as text: the
// command line, backslash continuations joined. A Dockerfile-style ENV
// does not count; a script has to say it on the command.
func staticBuildMisses(text string) []string {
	text = strings.ReplaceAll(text, "\\\n", " ")
	var misses []string
	for _, line := range strings.Split(text, "\n") {
		for _, m := range goBuildCommand.FindAllStringIndex(line, -1) {
			if !cgoOff.MatchString(line[:m[0]]) {
				misses = append(misses, strings.TrimSpace(line))
			}
		}
	}
	return misses
}

// TestBuildLinesAreStatic: every go build and go install that README.md,
// docs/ and the scripts give is a static build (CGO_ENABLED=0), as the
// release binaries and the image are; warden's own start-up path is
// tested in that build (TestBuiltWardenIsStatic).
func TestBuildLinesAreStatic(t *testing.T) {
	var files []string
	for _, pattern := range []string{"README.md", "docs/*.md", "scripts/*.sh", "scripts/*/*.sh"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	commands := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		commands += len(goBuildCommand.FindAllString(strings.ReplaceAll(string(data), "\\\n", " "), -1))
		for _, miss := range staticBuildMisses(string(data)) {
			t.Errorf("%s: a build without CGO_ENABLED=0: %s", f, miss)
		}
	}
	if commands < 4 {
		t.Errorf("found %d go build/install commands in %v; the check is not looking at them", commands, files)
	}
}

// TestStaticBuildMisses: the check finds a build without CGO_ENABLED=0
// however it is written, and accepts one that sets it, alone or among
// other variables.
func TestStaticBuildMisses(t *testing.T) {
	for _, tc := range []struct {
		text string
		miss bool
	}{
		{"go build -o warden .", true},
		{"go install github.com/wardenlock/warden@latest   # needs Go", true},
		{"From a checkout, `go build -o warden .` builds", true},
		{"CGO_ENABLED=1 go build -o warden .", true},
		{"XCGO_ENABLED=0 go build -o warden .", true},
		{"CGO_ENABLED=0 go build -o warden .", false},
		{"From a checkout, `CGO_ENABLED=0 go build -o warden .` builds", false},
		{"(cd \"$repo\" && CGO_ENABLED=0 GOOS=$goos GOFLAGS=-buildvcs=false \\\n\t\tgo build -trimpath -o x .)", false},
		{"CGO_ENABLED=0 GOWORK=off GOFLAGS='' go build -o probe .", false},
		{"`go install` puts `warden` in GOPATH", false},
		{"for example `CGO_ENABLED=0 go build` for Go", false},
	} {
		if got := len(staticBuildMisses(tc.text)) > 0; got != tc.miss {
			t.Errorf("%q: miss = %v, want %v", tc.text, got, tc.miss)
		}
	}
}
