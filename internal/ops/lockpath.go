package ops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wardenlock/warden/internal/lock"
)

// MissingLockError is returned when the lock to check or compare does not
// exist: the first run of a new setup. Its message says how to make one.
type MissingLockError struct {
	// Path is the lock path as given.
	Path string
	// Err is the underlying error (fs.ErrNotExist).
	Err error
}

func (e *MissingLockError) Error() string {
	return fmt.Sprintf("no lock at %s: create it with 'warden pin' (in the Action, mode: pin), review it and commit it", e.Path)
}

func (e *MissingLockError) Unwrap() error { return e.Err }

// readLock reads and strictly validates the lock at path (lock.ReadFile),
// turning a missing file into a MissingLockError. Cancelling ctx stops the
// reading within a chunk of the file, with an error wrapping ErrCancelled.
func readLock(ctx context.Context, path string) (*lock.Lock, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingLockError{Path: path, Err: err}
	}
	return readLockFile(ctx, path)
}

// startLockDeferred starts reading the lock at path but for its tool
// entries (see lock.StartReadDeferred); a lock that is not there is
// refused at once, as readLock refuses it.
func startLockDeferred(ctx context.Context, path string) (*lock.Deferred, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingLockError{Path: path, Err: err}
	}
	return lock.StartReadDeferred(ctx, path), nil
}

// readLockFile is lock.ReadFileContext, a read cut short by ctx failing
// with an error wrapping ErrCancelled.
func readLockFile(ctx context.Context, path string) (*lock.Lock, error) {
	l, err := lock.ReadFileContext(ctx, path)
	if cerr := Cancelled(ctx); err != nil && cerr != nil {
		return nil, cerr
	}
	return l, err
}

// readLockIndexed is readLock by entry texts (lock.ReadFileIndexed),
// taking entries from prior, the index of a verified lock, where it may;
// with lazy, leaving out the skeletons' compact text (lock.ReadFileLazy).
func readLockIndexed(ctx context.Context, path string, prior *lock.RawIndex, lazy bool) (*lock.Lock, *lock.RawIndex, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, &MissingLockError{Path: path, Err: err}
	}
	read := lock.ReadFileIndexed
	if lazy {
		read = lock.ReadFileLazy
	}
	l, x, err := read(ctx, path, prior)
	if cerr := Cancelled(ctx); err != nil && cerr != nil {
		return nil, nil, cerr
	}
	return l, x, err
}

// verifyLock refuses a stored lock whose entries do not reproduce its own
// digests (lock.Verify): it was edited by hand or tampered with, and
// comparing against it could report "clean" for entries nobody reviewed.
// check and diff refuse it alike.
func verifyLock(path string, l *lock.Lock) error {
	if err := lock.Verify(l); err != nil {
		return fmt.Errorf("lock %s does not verify against its own entries (edited or tampered; re-pin it): %w", path, err)
	}
	return nil
}

// CheckLockPath refuses, before anything is captured, a lock path that a
// pin could not write: one whose folder does not exist (or is not a
// folder), or that names a directory. A path that exists must be a regular
// file, as lock.WriteAtomic requires (it never writes through a symbolic
// link). Capturing first would launch the server only to fail at the end.
func CheckLockPath(path string) error {
	_, err := checkLockPath(path)
	return err
}

// lockFolder is the folder a lock path led to when it was checked.
type lockFolder struct {
	path string
	info fs.FileInfo
}

// checkLockPath is CheckLockPath, returning the folder it found.
func checkLockPath(path string) (lockFolder, error) {
	folder, err := checkLockFolder(path)
	if err != nil {
		return lockFolder{}, err
	}
	return folder, checkLockFile(path)
}

// recheck refuses, after the server ran and before the lock is written,
// a lock path that no longer leads where it did: a server runs in the
// repository and may swap the lock's folder (or one above it) for a link
// elsewhere, and the write must not follow it there.
func (f lockFolder) recheck(path string) error {
	now, err := checkLockFolder(path)
	if err != nil {
		return err
	}
	if !os.SameFile(f.info, now.info) {
		return fmt.Errorf("lock %s: the folder %s changed while the server ran (it now leads elsewhere); nothing was written", path, f.path)
	}
	return checkLockFile(path)
}

// checkLockFolder checks that the folder of a lock path exists and is a
// folder.
func checkLockFolder(path string) (lockFolder, error) {
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return lockFolder{}, fmt.Errorf("lock %s: the folder %s does not exist; create it first or choose another --lock path", path, dir)
	case err != nil:
		return lockFolder{}, fmt.Errorf("lock %s: %w", path, err)
	case !info.IsDir():
		return lockFolder{}, fmt.Errorf("lock %s: %s is not a folder", path, dir)
	}
	return lockFolder{path: dir, info: info}, nil
}

// checkLockFile checks that a lock path is absent or a regular file.
func checkLockFile(path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("lock %s: %w", path, err)
	case info.IsDir():
		return fmt.Errorf("lock %s is a directory; name a file, such as %s", path, filepath.Join(path, "warden.lock"))
	case !info.Mode().IsRegular():
		return fmt.Errorf("lock %s is not a regular file; warden does not write through or replace it (remove it, or choose another --lock path)", path)
	}
	return nil
}
