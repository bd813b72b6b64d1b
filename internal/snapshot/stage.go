package snapshot

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/wardenlock/warden/internal/infile"
	"github.com/wardenlock/warden/internal/lock"
)

// Staged is a snapshot written to a temporary file beside its final path,
// synced, waiting to be renamed into place: a pin stages the snapshot,
// writes the lock, and only then commits the snapshot, so that a pin that
// fails anywhere before leaves the old lock and the old snapshot as they
// were.
type Staged struct {
	file *lock.StagedFile
}

// Stage writes src (a snapshot's Parts, or its text in a bytes.Reader)
// to a temporary file in path's folder (lock.Stage). Like lock.WriteAtomic
// it refuses a path that exists and is not a regular file (a symbolic link
// is never written through).
func Stage(path string, src io.WriterTo) (*Staged, error) {
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() {
		return nil, fmt.Errorf("write %s: it is %s, not a regular file; warden does not write through or replace it (remove it, or pass --no-snapshot)", path, infile.FileType(info.Mode()))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	f, err := lock.Stage(path, func(w io.Writer) error {
		_, err := src.WriteTo(w)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Staged{file: f}, nil
}

// Path is where Commit puts the snapshot.
func (s *Staged) Path() string { return s.file.Path() }

// Commit renames the staged file into place. On failure the temporary
// file is removed, and so is whatever snapshot stood at the path: it was
// the old lock's, and must not stand beside the new one.
func (s *Staged) Commit() error {
	if err := s.file.Commit(); err != nil {
		s.Discard()
		if rerr := Remove(s.Path()); rerr != nil {
			return fmt.Errorf("%w; the old snapshot could not be removed either (%v): delete it, or check will refuse it", err, rerr)
		}
		return fmt.Errorf("%w (the old snapshot was removed)", err)
	}
	return nil
}

// Discard removes the staged file; the path is left as it was.
func (s *Staged) Discard() { s.file.Discard() }

// Remove deletes the snapshot at path, if there is a regular file there
// (a pin that writes no snapshot removes the old lock's, which no longer
// matches). Nothing there is not an error.
func Remove(path string) error {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("remove %s: it is %s, not a snapshot", path, infile.FileType(info.Mode()))
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	return nil
}
