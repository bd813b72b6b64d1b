package cli

import "flag"

// parseInterspersed parses args with fs, letting flags come before, between
// or after the positional arguments (`warden diff a.lock b.lock
// --exit-code`), and returns the positional arguments in order. A "--"
// ends flag parsing: everything after it is positional, as is. The flag
// package alone stops at the first positional argument.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			// Parse stopped at the terminator.
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
