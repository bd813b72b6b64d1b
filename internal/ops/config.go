package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wardenlock/warden/internal/clientconfig"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/mask"
	"github.com/wardenlock/warden/internal/report"
	"github.com/wardenlock/warden/internal/surface"
)

// DefaultJobs is how many servers of a config are captured at once.
const DefaultJobs = 4

// ConfigOptions configure PinConfig and CheckConfig: which servers of a
// client config, where their locks live, and what every capture shares.
type ConfigOptions struct {
	// Config is the client config; Configs are more, read as one (see
	// mergeConfigs). A run needs at least one.
	Config  *clientconfig.Config
	Configs []*clientconfig.Config
	// Servers selects servers by name; empty means every server.
	Servers []string
	// LockDir holds the locks; empty means each config's own directory.
	LockDir string
	// Jobs bounds the captures running at once; zero means DefaultJobs.
	Jobs int
	// Base carries what every server's capture shares: bounds, timeout
	// (each capture has its own), protocol, reaper. Its launch fields are
	// ignored.
	Base Target
	// Version is warden's version.
	Version string

	// Pin only.
	Approve           bool
	Approver          string
	Actor             string
	Environment       string
	AllowSecretInLock bool
	// NoSnapshot and AllowSecretInSnapshot are PinOptions' for each
	// server: its snapshot is <name>.warden.surface.json beside its lock.
	NoSnapshot            bool
	AllowSecretInSnapshot bool
	Now                   func() time.Time
	// Handed are the values handed to the servers (see PinOptions.Handed).
	Handed *mask.Set
}

// ServerRun is one server's part of a config run.
type ServerRun struct {
	Name     string
	LockPath string
	// Skipped is set for a server the config marks disabled (every
	// config naming it, in a run over several).
	Skipped bool
	// Configs are the paths of the configs that name the server, set
	// when the run read more than one.
	Configs []string
	// Allowlists are the configs' allowlists of its tools; Notes their
	// launch notes (clientconfig.Server.LaunchNote).
	Allowlists []report.Allowlist
	Notes      []string
	// Pin or Check holds the result; Err the failure (exit 2 for the run).
	Pin   *PinResult
	Check *CheckResult
	Err   error
}

// PinConfig pins every selected server into its own lock.
func PinConfig(ctx context.Context, o ConfigOptions) ([]ServerRun, error) {
	return runConfig(ctx, o, func(ctx context.Context, run *ServerRun, t Target) {
		run.Pin, run.Err = Pin(ctx, PinOptions{
			Target:            t,
			LockPath:          run.LockPath,
			Approve:           o.Approve,
			Approver:          o.Approver,
			Version:           o.Version,
			Actor:             o.Actor,
			Environment:       o.Environment,
			Now:               o.Now,
			AllowSecretInLock: o.AllowSecretInLock,
			Handed:            o.Handed,

			NoSnapshot:            o.NoSnapshot,
			AllowSecretInSnapshot: o.AllowSecretInSnapshot,
			Vet:                   func(l *lock.Lock) error { return vetAllowlists(run.Allowlists, l) },
		})
	})
}

// CheckConfig checks every selected server against its own lock. A server
// without a lock is an error for that server, never a pass.
func CheckConfig(ctx context.Context, o ConfigOptions) ([]ServerRun, error) {
	return runConfig(ctx, o, func(ctx context.Context, run *ServerRun, t Target) {
		if _, err := os.Lstat(run.LockPath); errors.Is(err, os.ErrNotExist) {
			run.Err = fmt.Errorf("no lock at %s (pin it with: warden pin --config ... --server %s)", run.LockPath, run.Name)
			return
		}
		run.Check, run.Err = Check(ctx, CheckOptions{Target: t, LockPath: run.LockPath, Version: o.Version})
		if run.Err == nil {
			run.Err = vetAllowlists(run.Allowlists, run.Check.Current)
		}
	})
}

// runConfig selects the servers, then runs each (at most o.Jobs at once)
// and returns their runs in the config's order.
func runConfig(ctx context.Context, o ConfigOptions, each func(context.Context, *ServerRun, Target)) ([]ServerRun, error) {
	configs := o.Configs
	if o.Config != nil {
		configs = append([]*clientconfig.Config{o.Config}, configs...)
	}
	if len(configs) == 0 || slices.Contains(configs, nil) {
		return nil, errors.New("no client config given")
	}
	selected, err := selectServers(configs, mergeConfigs(configs, o.LockDir), o.Servers)
	if err != nil {
		return nil, err
	}
	jobs := o.Jobs
	if jobs <= 0 {
		jobs = DefaultJobs
	}
	runs := make([]ServerRun, len(selected))
	slots := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, cs := range selected {
		s := cs.Server
		runs[i] = ServerRun{Name: s.Name, LockPath: cs.lockPath, Skipped: s.Disabled, Allowlists: cs.allowlists, Notes: cs.notes}
		if len(configs) > 1 {
			runs[i].Configs = cs.configs
		}
		switch {
		case s.Disabled:
			continue
		case s.Err != nil:
			runs[i].Err = fmt.Errorf("server %s: %w", s.Name, s.Err)
			continue
		}
		t := serverTarget(o.Base, s)
		wg.Add(1)
		go func(run *ServerRun) {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				run.Err = Cancelled(ctx)
				return
			}
			defer func() { <-slots }()
			each(ctx, run, t)
		}(&runs[i])
	}
	wg.Wait()
	return runs, nil
}

// selectServers keeps the named servers (all when names is empty), in the
// configs' order, refusing a name no config has.
func selectServers(configs []*clientconfig.Config, servers []*configServer, names []string) ([]*configServer, error) {
	if len(names) == 0 {
		if len(servers) == 0 {
			return nil, noServer(configs, "")
		}
		return servers, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []*configServer
	for _, s := range servers {
		if want[s.Name] {
			out = append(out, s)
			delete(want, s.Name)
		}
	}
	for _, n := range names {
		if want[n] {
			return nil, noServer(configs, n)
		}
	}
	return out, nil
}

// noServer is the error for a run whose configs list no server, or none
// named name.
func noServer(configs []*clientconfig.Config, name string) error {
	if len(configs) == 1 {
		if name == "" {
			return fmt.Errorf("config %s lists no servers", configs[0].Path)
		}
		return fmt.Errorf("config %s has no server named %q", configs[0].Path, name)
	}
	paths := make([]string, len(configs))
	for i, c := range configs {
		paths[i] = c.Path
	}
	if name == "" {
		return fmt.Errorf("none of the configs %s lists a server", strings.Join(paths, ", "))
	}
	return fmt.Errorf("none of the configs %s has a server named %q", strings.Join(paths, ", "), name)
}

// serverTarget is the capture of one configured server: the launch with
// its variables expanded, its own environment and headers, and the launch
// as written in the config as the identity the lock records.
func serverTarget(base Target, s clientconfig.Server) Target {
	t := base
	t.Argv, t.URL, t.Env, t.Headers, t.Dir = nil, "", nil, nil, s.Dir
	if s.URL != "" {
		t.URL = s.LaunchURL
		t.Headers = s.Headers
		t.Identity = &surface.Server{URL: s.URL}
		return t
	}
	t.Argv = s.LaunchArgv
	t.Env = s.Env
	t.Identity = &surface.Server{Command: s.Argv[0], Args: append([]string{}, s.Argv[1:]...)}
	return t
}

// ServerReports turns a config run into the reports' shape. mode is "pin"
// or "check"; display shows a lock or config path to the user (nil: as is); sarif
// locates each lock's results for its SARIF run.
func ServerReports(mode string, runs []ServerRun, display func(string) string, sarif func(lockPath string) report.SARIFOptions) []report.ServerReport {
	if display == nil {
		display = func(p string) string { return p }
	}
	out := make([]report.ServerReport, 0, len(runs))
	for _, run := range runs {
		r := report.ServerReport{Name: run.Name, Mode: mode, LockPath: display(run.LockPath), Skipped: run.Skipped,
			Allowlists: run.Allowlists, Notes: run.Notes}
		for _, c := range run.Configs {
			r.Configs = append(r.Configs, display(c))
		}
		switch {
		case run.Skipped:
		case run.Err != nil:
			r.Error = run.Err.Error()
		case run.Check != nil:
			r.Findings, r.Drift, r.Accepted = run.Check.Findings, run.Check.Drift, run.Check.Accepted
		case run.Pin != nil:
			r.Lock, r.Findings = run.Pin.Lock, run.Pin.Findings
			r.Accepted = report.AcceptedFromLock(run.Pin.Lock, true)
		}
		if sarif != nil && !run.Skipped && run.Err == nil {
			r.SARIF = sarif(run.LockPath)
			r.SARIF.Accepted = r.Accepted
		}
		out = append(out, r)
	}
	return out
}
