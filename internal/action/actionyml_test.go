package action

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/wardenlock/warden/internal/testserver"
)

// actionYMLNames returns the names under a top-level section ("inputs:" or
// "outputs:") of action.yml: the keys indented by two spaces.
func actionYMLNames(t *testing.T, section string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testserver.RepoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	in := false
	key := regexp.MustCompile(`^  ([a-z][a-z0-9-]*):\s*$`)
	for _, line := range regexp.MustCompile(`\r?\n`).Split(string(data), -1) {
		switch {
		case line == section+":":
			in = true
		case len(line) > 0 && line[0] != ' ' && line[0] != '#':
			in = false
		case in:
			if m := key.FindStringSubmatch(line); m != nil {
				names = append(names, m[1])
			}
		}
	}
	return names
}

// TestActionYMLDeclaresEveryInput: every input ParseInputs reads is declared
// in action.yml and every declared input is read, so that no input is
// silently ignored and none is undocumented.
func TestActionYMLDeclaresEveryInput(t *testing.T) {
	declared := actionYMLNames(t, "inputs")
	if len(declared) == 0 {
		t.Fatal("no inputs found in action.yml")
	}
	var read []string
	_, _ = ParseInputs(func(name string) string {
		if !slices.Contains(read, name) {
			read = append(read, name)
		}
		return ""
	})
	// With no target, ParseInputs stops at the first error; give it one so
	// that it reads everything.
	read = read[:0]
	_, _ = ParseInputs(func(name string) string {
		if !slices.Contains(read, name) {
			read = append(read, name)
		}
		if name == "server-cmd" {
			return "srv"
		}
		return ""
	})
	for _, name := range read {
		if !slices.Contains(declared, name) {
			t.Errorf("ParseInputs reads %q, which action.yml does not declare", name)
		}
	}
	for _, name := range declared {
		if !slices.Contains(read, name) {
			t.Errorf("action.yml declares %q, which ParseInputs never reads", name)
		}
	}
}
