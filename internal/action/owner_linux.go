package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// maxOwnedScan bounds the entries one scan of the workspace visits: far
// more than a checkout with its dependencies holds, and still a bounded
// walk.
const maxOwnedScan = 2 << 20

// errScanLimit stops a scan at maxOwnedScan entries.
var errScanLimit = fmt.Errorf("the workspace has more than %d entries", maxOwnedScan)

// inode names a file across renames; with its change time it tells an
// entry that existed before the run from one made or changed since.
type inode struct {
	dev, ino uint64
}

// ownership gives back to the workspace's owner what a run as root makes
// in the workspace. GitHub runs a container action as root, with the
// workspace bind-mounted from the runner, owned by the runner's user
// (uid 1001): without this the locks, SARIF, candidate lock and their
// directories, the objects git fetches for the base lock, and whatever a
// server writes there would stay root's, and the runner user could not
// delete them, which breaks the next checkout on a self-hosted runner.
type ownership struct {
	root     *os.Root
	uid, gid int
	// before is every root-owned entry that existed when the run began,
	// with its change time: those are not warden's to give away.
	before map[inode]syscall.Timespec
}

// watchOwnership starts an ownership for workspace when warden runs as
// root and the workspace is owned by another user; otherwise it returns
// nil, nil, and there is nothing to do.
func watchOwnership(workspace string) (*ownership, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	info, err := os.Stat(workspace)
	if err != nil {
		return nil, fmt.Errorf("the workspace's owner: %w", err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return nil, nil
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, fmt.Errorf("the workspace's owner: %w", err)
	}
	o := &ownership{root: root, uid: int(st.Uid), gid: int(st.Gid), before: map[inode]syscall.Timespec{}}
	err = o.scan(func(_ string, st *syscall.Stat_t) error {
		o.before[inodeOf(st)] = st.Ctim
		return nil
	})
	if err != nil {
		_ = root.Close()
		return nil, fmt.Errorf("the workspace's entries: %w", err)
	}
	return o, nil
}

// inodeOf is st's inode.
func inodeOf(st *syscall.Stat_t) inode {
	return inode{dev: uint64(st.Dev), ino: st.Ino}
}

// scan calls visit with every root-owned entry of the workspace but its
// top, found without following symbolic links and without leaving the
// workspace (os.Root). Entries that cannot be read are skipped.
func (o *ownership) scan(visit func(path string, st *syscall.Stat_t) error) error {
	seen := 0
	return fs.WalkDir(o.root.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && path != "." {
				return fs.SkipDir
			}
			return nil
		}
		if path == "." {
			return nil
		}
		if seen++; seen > maxOwnedScan {
			return errScanLimit
		}
		info, err := o.root.Lstat(path)
		if err != nil {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid == 0 {
			return visit(path, st)
		}
		return nil
	})
}

// restore gives every root-owned entry made or changed since
// watchOwnership to the workspace's owner (the link itself, for a symbolic
// link) and closes the ownership. It returns how many entries it changed.
func (o *ownership) restore() (int, error) {
	defer o.root.Close()
	n := 0
	var errs []error
	err := o.scan(func(path string, st *syscall.Stat_t) error {
		if ctime, ok := o.before[inodeOf(st)]; ok && ctime == st.Ctim {
			return nil
		}
		if err := o.root.Lchown(path, o.uid, o.gid); err != nil {
			if len(errs) < 3 {
				errs = append(errs, err)
			}
			return nil
		}
		n++
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return n, errors.Join(errs...)
}

// watchOwnership starts an ownership (see ownership) of the workspace and
// of HOME when it lies outside the workspace (the runner mounts its own
// directory there, /github/home, where npm and uv keep their caches), and
// returns the function that restores them, warning about what it could
// not give back.
func (r *runner) watchOwnership() (restore func()) {
	dirs := []string{r.workspace}
	if home := r.getenv("HOME"); filepath.IsAbs(home) && !within(r.workspace, filepath.Clean(home)) {
		dirs = append(dirs, filepath.Clean(home))
	}
	var owns []*ownership
	for _, dir := range dirs {
		o, err := watchOwnership(dir)
		if err != nil {
			r.warning("what this run makes in " + r.display(dir) + " stays root's: " + r.relative(err.Error()))
			continue
		}
		if o != nil {
			owns = append(owns, o)
		}
	}
	return func() {
		for _, o := range owns {
			if _, err := o.restore(); err != nil {
				r.warning(fmt.Sprintf("some of what this run made in %s stays root's (uid %d cannot delete it): %s", r.display(o.root.Name()), o.uid, r.relative(err.Error())))
			}
		}
	}
}
