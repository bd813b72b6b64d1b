import sys; sys.path.insert(0,'/tmp/mine')
from apply import *
# commands.go
p='internal/cli/commands.go'; s=head(p)
s=rep(s,'''	fs := newFlagSet(env, "pin", "pin [flags] (-- CMD ARGS... | --url URL)")
	var tf targetFlags
	var of outputFlags
	tf.register(fs)
	of.register(fs)''','''	fs := newFlagSet(env, "pin", "pin [flags] (-- CMD ARGS... | --url URL | --config FILE)")
	var tf targetFlags
	var of outputFlags
	var cf configFlags
	tf.register(fs)
	of.register(fs)
	cf.register(fs)''')
s=rep(s,'''	allowSecret := fs.Bool("allow-secret-in-lock", false, "write the lock even if a value it stores verbatim (argv, names, enum values) looks like a secret")
	if err := fs.Parse(args); err != nil {
		return ExitError
	}''','''	allowSecret := fs.Bool("allow-secret-in-lock", false, "write the lock even if a value it stores verbatim (argv, names, enum values) looks like a secret")
	if err := fs.Parse(args); err != nil {
		return ExitError
	}
	if err := cf.usedWith(fs); err != nil {
		return fail(env, oneLine(err))
	}
	if cf.path != "" {
		if *approve && *approver == "" {
			return fail(env, "--approve needs --approver ID (or WARDEN_APPROVER)")
		}
		return runPinConfig(ctx, env, &cf, &tf, of, ops.PinOptions{Approve: *approve, Approver: *approver, Actor: *actor,
			Environment: env.Getenv("WARDEN_ENV"), AllowSecretInLock: *allowSecret})
	}''')
s=rep(s,'''	fs := newFlagSet(env, "check", "check [flags] (-- CMD ARGS... | --url URL)")
	var tf targetFlags
	var of outputFlags
	tf.register(fs)
	of.register(fs)
	lockPath := fs.String("lock", "warden.lock", "lock file `path`")
	if err := fs.Parse(args); err != nil {
		return ExitError
	}''','''	fs := newFlagSet(env, "check", "check [flags] (-- CMD ARGS... | --url URL | --config FILE)")
	var tf targetFlags
	var of outputFlags
	var cf configFlags
	tf.register(fs)
	of.register(fs)
	cf.register(fs)
	lockPath := fs.String("lock", "warden.lock", "lock file `path`")
	if err := fs.Parse(args); err != nil {
		return ExitError
	}
	if err := cf.usedWith(fs); err != nil {
		return fail(env, oneLine(err))
	}
	if cf.path != "" {
		return runCheckConfig(ctx, env, &cf, &tf, of)
	}''')
stage(p,s)
p='internal/cli/output.go'; s=head(p)
s=rep(s,'''	root := env.Getenv("GITHUB_WORKSPACE")
	if root == "" {
		root = workDir(env)
	}
	opts := report.SARIFOptions{Version: env.Version, ArtifactURI: report.ArtifactURI(lockPath, root)}
	if text, err := lock.ReadBytes(lockPath); err == nil {
		opts.Lines = report.IndexLock(text)
	}
	var buf bytes.Buffer
	if err := report.WriteSARIF(&buf, findings, items, opts); err != nil {''','''	var buf bytes.Buffer
	if err := report.WriteSARIF(&buf, findings, items, sarifOptions(env, lockPath)); err != nil {''')
stage(p,s)
p='internal/ops/ops.go'; s=head(p)
s=rep(s,'''	if o.Target.URL != "" {
		if err := storedURLError(o.Target.URL, o.AllowSecretInLock); err != nil {''','''	if stored := storedURL(o.Target); stored != "" {
		if err := storedURLError(stored, o.AllowSecretInLock); err != nil {''')
s=rep(s,'''func now(clock func() time.Time) time.Time {''','''// storedURL is the URL a pin of t would store: the recorded identity's when
// there is one (a client config's URL before its variables are expanded).
func storedURL(t Target) string {
	if t.Identity != nil {
		return t.Identity.URL
	}
	return t.URL
}

func now(clock func() time.Time) time.Time {''')
stage(p,s)
# go.mod: add hujson only
p='go.mod'; s=head(p)
import re
s=rep(s,'''require (
	github.com/gowebpki/jcs v1.0.2''','''require (
	github.com/gowebpki/jcs v1.0.2''')
open('/tmp/mine/gomod_head','w').write(s)
