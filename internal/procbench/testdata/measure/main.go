//go:build unix

// Command measure runs a command and writes what it cost to a file: its
// wall time, its user+system CPU time and its peak resident set size, each
// as a decimal number (nanoseconds, nanoseconds, bytes), then its exit code,
// on one line.
//
// The benchmarks run warden and the floor through it rather than reading
// the rusage of their own children: a child forked from a large process
// (the benchmark, which holds the generated files) reports that process's
// resident size as its own peak, because the fork shares the parent's
// memory until exec. Forked from this small process, a command's peak is
// its own.
//
// Usage: measure OUTFILE COMMAND [ARGS...]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: measure OUTFILE COMMAND [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(2)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "measure: no resource usage")
		os.Exit(2)
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	line := fmt.Sprintf("%d %d %d %d\n", wall.Nanoseconds(), cpu.Nanoseconds(), ru.Maxrss*1024, cmd.ProcessState.ExitCode())
	if err := os.WriteFile(os.Args[1], []byte(line), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(2)
	}
}
