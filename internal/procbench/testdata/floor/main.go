// Command floor is the yardstick of warden's whole-process benchmarks: it
// does the least any tool must do with the files warden reads — read each
// one, decode it with encoding/json into generic values, and hash its bytes
// with SHA-256 — and nothing else. The benchmarks run it on the same files
// in the same run as warden and report warden's time and peak memory as
// ratios to it.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: floor FILE...")
		os.Exit(2)
	}
	for _, path := range os.Args[1:] {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(2)
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			fmt.Fprintf(os.Stderr, "floor: %s: %v\n", path, err)
			os.Exit(2)
		}
		sum := sha256.Sum256(data)
		fmt.Printf("%x  %s\n", sum, path)
	}
}
