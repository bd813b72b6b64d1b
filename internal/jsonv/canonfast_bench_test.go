package jsonv

import (
	"os"
	"testing"
)

// lockSkeletons returns the schema skeletons of a lock file's text (the
// test's own fixture, see benchLock), each as it stands in the file.
func lockSkeletons(tb testing.TB, data []byte) [][]byte {
	tb.Helper()
	var out [][]byte
	d := NewBytesDecoder(data, Options{})
	err := d.Object(func(key string) error {
		if key != "tools" {
			return d.Skip()
		}
		return d.Array(func(int) error {
			return d.Object(func(key string) error {
				if key != "schema_skeleton" && key != "output_schema_skeleton" {
					return d.Skip()
				}
				if k, _ := d.Next(); k != Object {
					return d.Skip()
				}
				start := d.pos
				if err := d.Skip(); err != nil {
					return err
				}
				out = append(out, data[start:d.pos])
				return nil
			})
		})
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func benchSkeletons(b *testing.B, fast bool) {
	path := os.Getenv("WARDEN_BENCH_LOCK")
	if path == "" {
		b.Skip("WARDEN_BENCH_LOCK names no lock file")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	sks := lockSkeletons(b, data)
	// One array of them all, read item by item with one Decoder, as a
	// lock reader reads its tools.
	list := []byte{'['}
	for i, s := range sks {
		if i > 0 {
			list = append(list, ',', '\n')
		}
		list = append(list, s...)
	}
	list = append(list, ']')
	b.SetBytes(int64(len(list)))
	var c, k []byte
	for b.Loop() {
		d := NewBytesDecoder(list, Options{})
		err := d.Array(func(int) error {
			var ok bool
			var err error
			if fast {
				c, k, ok, err = d.CanonicalText(c[:0], k[:0], 1)
			} else {
				c, k, ok, err = d.Transcode(c[:0], k[:0], 1)
			}
			if !ok || err != nil {
				b.Fatal(ok, err)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSkeletonsTranscode(b *testing.B)     { benchSkeletons(b, false) }
func BenchmarkSkeletonsCanonicalText(b *testing.B) { benchSkeletons(b, true) }
