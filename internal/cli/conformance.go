package cli

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wardenlock/warden/internal/conformance"
)

// runConformance runs the reference corpus and warden's own vectors/ (or the
// directories named), printing one line per failing case and a closing
// "N passed, N failed" line; exit 1 on any failure.
func runConformance(env Env, args []string) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(new(bytes.Buffer))
	verbose := fs.Bool("v", false, "print every case")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: warden conformance [-v] [DIR...]\n\nWith no DIR: $WARDEN_VECTORS or ../shared/vectors, plus ./vectors.")
	}
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return flagsDone(env, fs, err)
	}
	if len(dirs) == 0 {
		root := repoRoot(workDir(env))
		ref := conformance.DefaultDir(root, env.Getenv)
		if _, err := os.Stat(filepath.Join(ref, "manifest.json")); err != nil {
			return fail(env, fmt.Sprintf("no reference corpus at %s (set %s)", ref, conformance.EnvVar))
		}
		dirs = append(dirs, ref)
		if own := filepath.Join(root, "vectors"); fileExists(filepath.Join(own, "manifest.json")) {
			dirs = append(dirs, own)
		}
	}
	var all []conformance.Result
	for _, d := range dirs {
		results, err := conformance.Run(d)
		if err != nil {
			return fail(env, oneLine(err))
		}
		for _, r := range results {
			if r.Err != nil {
				fmt.Fprintln(env.Stdout, conformance.FailureLine(r))
			} else if *verbose {
				fmt.Fprintf(env.Stdout, "ok   %s\n", r.ID)
			}
		}
		all = append(all, results...)
	}
	line, failed := conformance.Summary(all)
	fmt.Fprintln(env.Stdout, line)
	if failed > 0 {
		return ExitDrift
	}
	return ExitClean
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
