package ops

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wardenlock/warden/internal/clientconfig"
	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/report"
)

// configServer is one server of a run over one or more configs: the entry
// that is captured, and what every config naming it adds.
type configServer struct {
	clientconfig.Server
	// lockPath is where its lock lives.
	lockPath string
	// configs are the paths of the configs that name it.
	configs []string
	// allowlists are those configs' allowlists of its tools.
	allowlists []report.Allowlist
	// notes are the distinct launch notes of its entries.
	notes []string
}

// mergeConfigs lists the servers of the configs, each name once, in the
// order the configs first name them. A server named in several configs is
// captured once, into one lock, when its entries launch it the same way
// (see launchDiffers); when they do not, it fails naming both configs. A
// server disabled in one config runs from the configs that enable it.
func mergeConfigs(configs []*clientconfig.Config, lockDir string) []*configServer {
	byName := map[string]*configServer{}
	// lockOwner keeps two names from sharing one lock file across configs
	// (within one config, clientconfig refuses it).
	lockOwner := map[string]string{}
	var out []*configServer
	for _, c := range configs {
		dir := lockDir
		if dir == "" {
			dir = filepath.Dir(c.Path)
		}
		for _, s := range c.Servers {
			cs, seen := byName[s.Name]
			if !seen {
				cs = &configServer{Server: s, lockPath: filepath.Join(dir, s.LockName)}
				if s.Err != nil && len(configs) > 1 {
					cs.Err = fmt.Errorf("in %s: %w", c.Path, s.Err)
				}
				if owner, taken := lockOwner[cs.lockPath]; taken && s.Err == nil {
					cs.Err = fmt.Errorf("its lock file %s would be the same as server %q's; rename one", s.LockName, owner)
				}
				lockOwner[cs.lockPath] = s.Name
				byName[s.Name] = cs
				out = append(out, cs)
			} else {
				cs.join(s, c.Path)
			}
			if !slices.Contains(cs.configs, c.Path) {
				cs.configs = append(cs.configs, c.Path)
			}
			if s.Tools != nil && !s.Disabled {
				cs.allowlists = append(cs.allowlists, report.Allowlist{Tools: s.Tools, Except: s.DeniedTools, From: s.ToolsFrom})
			}
			if s.LaunchNote != "" && !s.Disabled && !slices.Contains(cs.notes, s.LaunchNote) {
				cs.notes = append(cs.notes, s.LaunchNote)
			}
		}
	}
	return out
}

// join adds another config's entry s, from the config at path, to the
// server.
func (cs *configServer) join(s clientconfig.Server, path string) {
	switch {
	case cs.Err != nil || s.Disabled:
		return
	case s.Err != nil:
		cs.Disabled = false
		cs.Err = fmt.Errorf("in %s: %w", path, s.Err)
		return
	case cs.Disabled:
		// The first entry was disabled: this one is the launch.
		keep := cs.configs
		cs.Server = s
		cs.configs = keep
		return
	}
	if what := launchDiffers(cs.Server, s); what != "" {
		cs.Err = fmt.Errorf("%s and %s launch it differently (%s): one lock cannot stand for both; give the server the same launch in both or rename one", cs.configs[0], path, what)
	}
}

// launchDiffers says how two entries of one server launch it differently,
// or "" when one capture stands for both: the same command and args (or
// URL) as written, which the lock records, and as expanded, which runs;
// the same working directory; and the same env and headers entries, names
// and values. Values are compared and never named: they may be secrets.
func launchDiffers(a, b clientconfig.Server) string {
	switch {
	case (a.URL == "") != (b.URL == ""):
		return "one is a stdio server, the other remote"
	case !slices.Equal(a.Argv, b.Argv) || a.URL != b.URL:
		return "the launch as written"
	case !slices.Equal(a.LaunchArgv, b.LaunchArgv) || a.LaunchURL != b.LaunchURL:
		return "the launch once variables are expanded"
	case a.Dir != b.Dir:
		return "the working directory"
	}
	if what := entriesDiffer("env", a.Env, b.Env, "="); what != "" {
		return what
	}
	return entriesDiffer("header", a.Headers, b.Headers, ":")
}

// entriesDiffer compares two lists of NAME<sep>VALUE entries as sets,
// naming the first name whose value differs or that only one has.
func entriesDiffer(kind string, a, b []string, sep string) string {
	split := func(entries []string) map[string]string {
		m := map[string]string{}
		for _, e := range entries {
			name, value, _ := strings.Cut(e, sep)
			if kind == "header" {
				name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
			}
			m[name] = value
		}
		return m
	}
	ma, mb := split(a), split(b)
	names := make([]string, 0, len(ma)+len(mb))
	for n := range ma {
		names = append(names, n)
	}
	for n := range mb {
		if _, ok := ma[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		va, inA := ma[n]
		vb, inB := mb[n]
		switch {
		case inA != inB:
			return fmt.Sprintf("%s %s is set in one only", kind, n)
		case va != vb:
			return fmt.Sprintf("%s %s has another value", kind, n)
		}
	}
	return ""
}

// vetAllowlists refuses a lock whose tools lack one that an allowlist
// names: the config lets an agent call a tool the server does not have,
// which is a mistake in the config or a tool withdrawn behind its back.
func vetAllowlists(lists []report.Allowlist, l *lock.Lock) error {
	if len(lists) == 0 || l == nil {
		return nil
	}
	have := make(map[string]bool, len(l.Tools))
	for _, t := range l.Tools {
		have[t.Name] = true
	}
	for _, a := range lists {
		for _, name := range a.Tools {
			if name != "*" && !have[name] && !slices.Contains(a.Except, name) {
				return fmt.Errorf("the allowlist %s names the tool %q, which the server does not have", a.From, name)
			}
		}
	}
	return nil
}
