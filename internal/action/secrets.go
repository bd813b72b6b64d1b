package action

import (
	"io"
	"strings"

	"github.com/wardenlock/warden/internal/mask"
)

// addSecrets registers values handed to a server as secrets: first with
// the runner (::add-mask::, so that its log hides them too), then with the
// run's own mask, which hides them in everything warden prints or writes.
// The add-mask line goes out before the value joins the mask: masked, it
// would register "***" instead.
func (r *runner) addSecrets(values ...string) error {
	for _, v := range values {
		if len(v) < mask.MinLength {
			continue
		}
		if err := r.log.Mask(v); err != nil {
			return err
		}
		r.secrets.Add(v)
	}
	return nil
}

// inputSecrets are the values the headers and env inputs hand the server
// (see mask.HeaderParts and mask.EnvValue).
func inputSecrets(in Inputs, getenv func(string) string) []string {
	var out []string
	for _, h := range in.Headers {
		_, v, _ := strings.Cut(h, ":")
		out = append(out, mask.HeaderParts(v, getenv)...)
	}
	for _, e := range in.Env {
		out = append(out, mask.EnvValue(e, getenv))
	}
	return out
}

// appendMasked is appendFile with the run's secrets masked in what write
// writes: the summary and the outputs files.
func (r *runner) appendMasked(path string, write func(io.Writer) error) error {
	return appendFile(path, func(w io.Writer) error {
		mw := r.secrets.Writer(w)
		if err := write(mw); err != nil {
			return err
		}
		return mw.Flush()
	})
}
