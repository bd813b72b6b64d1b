package main

import (
	"os"
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
	if !strings.Contains(sh, "go install github.com/wardenlock/warden@latest") {
		t.Error("README does not install with go install github.com/wardenlock/warden@latest")
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
