package cli

import (
	"errors"
	"flag"
	"fmt"

	"github.com/wardenlock/warden/internal/ops"
)

// surfaceFlags is --surface, shared by pin and check: pin or check a
// surface file instead of capturing a server.
type surfaceFlags struct {
	path string
}

func (s *surfaceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.path, "surface", "", "pin or check the surface in `FILE` instead of launching a server: the conformance corpus's surface shape, naming the server by command and args or by url (- reads standard input)")
}

// captureOnly are the flags that say how to reach or capture a server,
// which nothing does with --surface. --max-items is not among them: it
// bounds a surface file's lists as it bounds a capture's.
var captureOnly = []string{"url", "header", "env", "timeout", "max-pages", "max-message-bytes", "protocol", "config", "server", "lock-dir", "jobs"}

// usedWith refuses, with --surface, a server command or a capture flag.
func (s *surfaceFlags) usedWith(fs *flag.FlagSet) error {
	if s.path == "" {
		return nil
	}
	if fs.NArg() > 0 {
		return errors.New("a server command does not apply with --surface (nothing is launched; the surface file names its server)")
	}
	var refused error
	fs.Visit(func(f *flag.Flag) {
		for _, n := range captureOnly {
			if f.Name == n && refused == nil {
				refused = fmt.Errorf("--%s does not apply with --surface (nothing is launched; the surface file names its server)", n)
			}
		}
	})
	return refused
}

// target is the capture target: with --surface none, only the item
// bound, else tf's.
func (s *surfaceFlags) target(tf *targetFlags, argv []string) (ops.Target, error) {
	if s.path != "" {
		if tf.maxItems < 1 {
			return ops.Target{}, errors.New("--max-items must be at least 1")
		}
		return ops.Target{MaxItems: tf.maxItems}, nil
	}
	return tf.target(argv)
}
