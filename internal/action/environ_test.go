package action

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestHideEnvironment runs hideEnvironment in a child copy of the test
// binary (it changes the whole process): afterwards the process is not
// dumpable, and a program it starts is dumpable again.
func TestHideEnvironment(t *testing.T) {
	if os.Getenv("WARDEN_TEST_HIDE_ENVIRONMENT") == "1" {
		if err := hideEnvironment(); err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		d, err := dumpable()
		if err != nil {
			os.Exit(1)
		}
		// Programs started afterwards (the server) still run.
		out, _ := exec.Command("sh", "-c", "echo child-ok").Output()
		os.Stdout.WriteString("dumpable=" + map[bool]string{true: "1", false: "0"}[d] + " " + strings.TrimSpace(string(out)) + "\n")
		os.Exit(0)
	}
	if runtime.GOOS != "linux" {
		t.Skip("prctl is Linux only")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHideEnvironment$")
	cmd.Env = append(os.Environ(), "WARDEN_TEST_HIDE_ENVIRONMENT=1")
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "dumpable=0 child-ok") {
		t.Errorf("child: %v\n%s", err, out)
	}
}
