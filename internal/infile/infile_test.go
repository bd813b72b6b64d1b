package infile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestOpenReadsWithinLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		max  int64
		want string // error text; empty: reads all
	}{
		{10, ""},
		{100, ""},
		{9, "read surface file " + path + ": the file is larger than 9 bytes, the most a surface file may be (10 bytes or more)"},
	} {
		data, err := ReadAll(path, "surface file", tc.max)
		switch {
		case tc.want == "" && (err != nil || string(data) != "0123456789"):
			t.Errorf("max %d: %q, %v", tc.max, data, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || !IsTooLarge(err)):
			t.Errorf("max %d: err = %v, want %s", tc.max, err, tc.want)
		}
	}
	if _, err := Open(filepath.Dir(path), "lock", 100); err == nil || !strings.Contains(err.Error(), "not a regular file (a directory); a lock must be a plain file") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Open(path+".absent", "lock", 100); err == nil || !strings.HasPrefix(err.Error(), "read lock "+path+".absent: ") {
		t.Errorf("missing: %v", err)
	}
}

// endless is an input that never ends, like a pipe from /dev/zero.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

func TestStdinIsBounded(t *testing.T) {
	f := Stdin(endless{}, "surface file", 1000)
	n, err := io.Copy(io.Discard, f)
	var tl *TooLargeError
	if !errors.As(err, &tl) || n != 1000 || tl.Path != "(standard input)" {
		t.Fatalf("copied %d, err %v", n, err)
	}
	if _, again := f.Read(make([]byte, 10)); again != err {
		t.Errorf("after the limit Read returned %v", again)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	small := Stdin(strings.NewReader("{}"), "surface file", 2)
	if data, err := io.ReadAll(small); err != nil || string(data) != "{}" {
		t.Fatalf("input at the limit: %q, %v", data, err)
	}
}

// TestGrowingFile: a file that grows past the limit after it was opened is
// refused when the reading gets there.
func TestGrowingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, "lock", 5)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(path, []byte("abcdefgh"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(f); !IsTooLarge(err) {
		t.Fatalf("err = %v", err)
	}
}

// TestStampAndReadAt checks that a file's Stamp stays while nothing
// writes to it and moves when something does, even the same bytes, and
// that ReadAt reads the file again; standard input has neither.
func TestStampAndReadAt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(p, "lock", 100)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, ok := f.Stamp()
	if !ok {
		if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
			t.Fatal("no stamp for a regular file")
		}
		t.Skip("no change times on this platform")
	}
	if again, _ := f.Stamp(); again != before {
		t.Fatalf("stamp moved with nothing written: %+v, %+v", before, again)
	}
	buf := make([]byte, 4)
	if n, err := f.ReadAt(buf, 3); n != 4 || err != nil || string(buf) != "3456" {
		t.Fatalf("ReadAt = %d %q, %v", n, buf, err)
	}
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if after, _ := f.Stamp(); after == before {
		t.Fatal("stamp did not move when the file was written")
	}
	in := Stdin(strings.NewReader("x"), "lock", 100)
	if _, ok := in.Stamp(); ok {
		t.Fatal("standard input has a stamp")
	}
	if _, err := in.ReadAt(buf, 0); err == nil {
		t.Fatal("standard input read again")
	}
}
