package skeleton

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wardenlock/warden/internal/jsonv"
)

// vectorCases loads every case of the given kind from the conformance
// corpus: $WARDEN_VECTORS, else ../shared/vectors relative to the repository
// root. The test is skipped when the corpus is absent.
func vectorCases(t *testing.T, kind string) map[string]*jsonv.Value {
	t.Helper()
	dir := os.Getenv("WARDEN_VECTORS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "vectors")
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if os.IsNotExist(err) {
		t.Skipf("conformance corpus not found at %s (set WARDEN_VECTORS to run this test)", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	manifest := parse(t, string(data))
	cases := map[string]*jsonv.Value{}
	for _, e := range manifest.Get("vectors").Items {
		if k, _ := e.Get("kind").Str(); k != kind {
			continue
		}
		file, _ := e.Get("file").Str()
		id, _ := e.Get("id").Str()
		text, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		cases[id] = parse(t, string(text))
	}
	if len(cases) == 0 {
		t.Fatalf("no %s cases in %s", kind, dir)
	}
	return cases
}

// TestVectorsDigestSkeletons checks Extract against every tool of every
// digest case: schema_skeleton from inputSchema, output_schema_skeleton from
// outputSchema (null when absent or null). The comparison is on compact text,
// so path order, record key order and constraint key order are checked too.
func TestVectorsDigestSkeletons(t *testing.T) {
	matched := 0
	for id, c := range vectorCases(t, "digest") {
		want := map[string]*jsonv.Value{}
		for _, e := range c.Get("expect").Get("tools").Items {
			name, _ := e.Get("name").Str()
			want[name] = e
		}
		for _, tool := range c.Get("surface").Get("tools").Items {
			name, _ := tool.Get("name").Str()
			exp := want[name]
			if exp == nil {
				t.Errorf("%s: no expected entry for tool %q", id, name)
				continue
			}
			in := Extract(tool.Get("inputSchema")).Value().Compact()
			if w := exp.Get("schema_skeleton").Compact(); in != w {
				t.Errorf("%s tool %q schema_skeleton\n got %s\nwant %s", id, name, in, w)
			}
			var out *Skeleton
			if o := tool.Get("outputSchema"); !o.IsNull() {
				out = Extract(o)
			}
			if got, w := out.Value().Compact(), exp.Get("output_schema_skeleton").Compact(); got != w {
				t.Errorf("%s tool %q output_schema_skeleton\n got %s\nwant %s", id, name, got, w)
			}
			matched++
		}
	}
	if matched == 0 {
		t.Fatal("no digest tools found")
	}
	t.Logf("%d tools checked", matched)
}

// TestVectorsDriftLockSkeletons reads every skeleton stored in a drift case's
// baseline lock and checks that FromValue then Value gives it back unchanged.
func TestVectorsDriftLockSkeletons(t *testing.T) {
	n := 0
	for id, c := range vectorCases(t, "drift") {
		for _, tool := range c.Get("lock").Get("tools").Items {
			name, _ := tool.Get("name").Str()
			for _, key := range []string{"schema_skeleton", "output_schema_skeleton"} {
				stored := tool.Get(key)
				if stored == nil {
					continue // pre-v4 locks may omit the output skeleton
				}
				sk, err := FromValue(stored)
				if err != nil {
					t.Errorf("%s tool %q %s: %v", id, name, key, err)
					continue
				}
				if got, want := sk.Value().Compact(), stored.Compact(); got != want {
					t.Errorf("%s tool %q %s round trip\n got %s\nwant %s", id, name, key, got, want)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no stored skeletons found")
	}
	t.Logf("%d stored skeletons round-tripped", n)
}
