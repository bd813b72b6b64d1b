package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// readmeSections returns the README's level-2 headings in order, with the
// line each starts on.
func readmeSections(t *testing.T) (names []string, lines []int) {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "## "); ok {
			names = append(names, name)
			lines = append(lines, i+1)
		}
	}
	return names, lines
}

// TestReadmeFrontDoor: the README opens with what a newcomer needs, in
// this order (what warden is, install, the first lock, the Action, the
// two set-up commands), fits about two screens before its first link into
// docs/, and leaves the benchmark notes and the code layout to
// docs/performance.md and docs/architecture.md.
func TestReadmeFrontDoor(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	names, _ := readmeSections(t)
	want := []string{"Install", "Your first lock", "GitHub Action", "Two commands"}
	if len(names) < len(want) {
		t.Fatalf("README sections %q; want them to start with %q", names, want)
	}
	for i, w := range want {
		if names[i] != w {
			t.Errorf("README section %d is %q, want %q (sections: %q)", i+1, names[i], w, names)
		}
	}
	for _, gone := range []string{"Status", "Layout"} {
		for _, n := range names {
			if n == gone {
				t.Errorf("README still has a %q section; it belongs in docs/", gone)
			}
		}
	}
	first := strings.Index(text, "](docs/")
	if first < 0 {
		t.Fatal("README links to nothing in docs/")
	}
	if n := strings.Count(text[:first], "\n") + 1; n > 100 {
		t.Errorf("the first link into docs/ is on line %d; the front door should fit about two screens (100 lines)", n)
	}
	for _, doc := range []string{"docs/performance.md", "docs/architecture.md", "docs/coming-from-mcp-warden.md"} {
		if !strings.Contains(text, "]("+doc+")") {
			t.Errorf("README does not link %s", doc)
		}
	}
	sh := strings.Join(fencedBlocks(t, "README.md", "sh"), "\n")
	if !strings.Contains(sh, "bash scripts/demo.sh") {
		t.Error("README lacks the demo command, bash scripts/demo.sh")
	}
}

// githubSlug is the anchor GitHub gives a Markdown heading: lower case,
// spaces to hyphens, and every character but letters, digits, hyphens and
// underscores dropped.
func githubSlug(heading string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '-'
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z':
			return r
		case r > 127:
			return r
		}
		return -1
	}, strings.ToLower(heading))
}

// anchorsOf returns the anchors a Markdown file defines: heading slugs
// (with GitHub's -1, -2 for repeats) and explicit <a id="..."> tags.
func anchorsOf(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if m := regexp.MustCompile(`^#{1,6} (.+?)\s*$`).FindStringSubmatch(line); m != nil {
			slug := githubSlug(m[1])
			if n := seen[slug]; n > 0 {
				anchors[slug+"-"+strconv.Itoa(n)] = true
			} else {
				anchors[slug] = true
			}
			seen[slug]++
		}
	}
	for _, m := range regexp.MustCompile(`<a id="([^"]+)"></a>`).FindAllStringSubmatch(string(data), -1) {
		anchors[m[1]] = true
	}
	return anchors
}

// TestDocsLinksResolve: every relative link in README.md and docs/*.md
// names a file of the repository, and every #anchor one its target
// defines, so moving a section never leaves a dead link behind.
func TestDocsLinksResolve(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			resolved := f
			if path != "" {
				resolved = filepath.Join(filepath.Dir(f), path)
			}
			checked++
			if _, err := os.Stat(resolved); err != nil {
				t.Errorf("%s: link %q: no file %s", f, target, resolved)
				continue
			}
			if anchor != "" && strings.HasSuffix(resolved, ".md") && !anchorsOf(t, resolved)[anchor] {
				t.Errorf("%s: link %q: %s has no anchor %q", f, target, resolved, anchor)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d links; the pattern is not finding them", checked)
	}
}

// vectorCount reads the case count of a conformance corpus's manifest.
func vectorCount(t *testing.T, dir string) (int, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if os.IsNotExist(err) {
		return 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Count int `json:"count"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m.Count, true
}

// TestConformanceFigureTrue: the conformance figure the README and
// docs/performance.md give is the sum of the two corpora, each labelled
// with its own count, as `warden conformance` prints it.
func TestConformanceFigureTrue(t *testing.T) {
	ours, ok := vectorCount(t, "vectors")
	if !ok {
		t.Fatal("no vectors/manifest.json")
	}
	refDir := os.Getenv("WARDEN_VECTORS")
	if refDir == "" {
		refDir = filepath.Join("..", "shared", "vectors")
	}
	ref, ok := vectorCount(t, refDir)
	if !ok {
		t.Skipf("no reference corpus at %s (set WARDEN_VECTORS)", refDir)
	}
	total := ref + ours
	for _, f := range []string{"README.md", "docs/performance.md"} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, want := range []string{
			fmt.Sprintf("%d passed, 0 failed", total),
			fmt.Sprintf("%d cases", ref),
			strconv.Itoa(ours),
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s does not say %q (reference %d + ours %d = %d)", f, want, ref, ours, total)
			}
		}
	}
}

// TestDependabotCoversPins: .github/dependabot.yml watches every kind of
// pin the repository has (the SHA-pinned actions, the Dockerfile's base
// image, the Go modules, the npm fixtures), and each directory it names
// holds that ecosystem's manifest.
func TestDependabotCoversPins(t *testing.T) {
	data, err := os.ReadFile(".github/dependabot.yml")
	if err != nil {
		t.Fatal(err)
	}
	manifest := map[string]string{"github-actions": ".github/workflows", "docker": "Dockerfile", "gomod": "go.mod", "npm": "package.json"}
	seen := map[string]bool{}
	ecosystem := ""
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(trimmed, "- package-ecosystem:"); ok {
			ecosystem = strings.TrimSpace(v)
			if _, known := manifest[ecosystem]; !known {
				t.Errorf("dependabot.yml: unexpected ecosystem %q", ecosystem)
			}
			seen[ecosystem] = true
			continue
		}
		var dir string
		if v, ok := strings.CutPrefix(trimmed, "directory:"); ok {
			dir = strings.TrimSpace(v)
		} else if v, ok := strings.CutPrefix(trimmed, "- /"); ok && ecosystem != "" {
			dir = "/" + strings.TrimSpace(v)
		} else {
			continue
		}
		p := filepath.Join("."+dir, manifest[ecosystem])
		if _, err := os.Stat(p); err != nil {
			t.Errorf("dependabot.yml: %s directory %s has no %s", ecosystem, dir, manifest[ecosystem])
		}
	}
	for e := range manifest {
		if !seen[e] {
			t.Errorf("dependabot.yml does not watch %s", e)
		}
	}
}
