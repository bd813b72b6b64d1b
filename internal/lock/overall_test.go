package lock

import (
	"testing"

	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
)

// overallBody is the document the overall digest hashes (SPEC §8): the
// schema version, the server's command digest and the entry digests in
// the lock's order.
func overallBody(l *Lock) *jsonv.Value {
	tools := make([]*jsonv.Value, len(l.Tools))
	for i, t := range l.Tools {
		tools[i] = jsonv.NewString(t.EntryDigest)
	}
	res := make([]*jsonv.Value, len(l.Resources))
	for i, r := range l.Resources {
		res[i] = jsonv.NewString(r.EntryDigest)
	}
	prompts := make([]*jsonv.Value, len(l.Prompts))
	for i, p := range l.Prompts {
		prompts[i] = jsonv.NewString(p.EntryDigest)
	}
	return jsonv.NewObject(
		jsonv.M("schema_version", jsonv.NewInt(int64(l.SchemaVersion))),
		jsonv.M("server", jsonv.NewObject(jsonv.M("command_digest", jsonv.NewString(l.Server.CommandDigest)))),
		jsonv.M("tools", jsonv.NewArray(tools...)),
		jsonv.M("resources", jsonv.NewArray(res...)),
		jsonv.M("prompts", jsonv.NewArray(prompts...)),
	)
}

// TestOverallDigestMatchesTree: the overall digest written straight into
// the hasher is the hash of its document's tree, for locks of every shape
// and for entry digests that need escaping (a tampered lock's).
func TestOverallDigestMatchesTree(t *testing.T) {
	locks := streamLocks(t)
	odd := *locks["generated"]
	odd.Tools = append([]Tool{}, odd.Tools...)
	odd.Tools[0].EntryDigest = "sha256:\"q\"\u00e9\u2028\x01"
	odd.Prompts = []Prompt{{Name: "p", EntryDigest: "x"}, {Name: "q", EntryDigest: ""}}
	odd.Resources = []Resource{{URI: "u", EntryDigest: "\U0001F600"}}
	locks["odd"] = &odd
	for name, l := range locks {
		got, err := overallDigest(&canon.Hasher{}, l)
		if err != nil {
			t.Fatal(err)
		}
		want, err := canon.Hash(overallBody(l))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: %s, the tree hashes to %s", name, got, want)
		}
	}
}

// TestEntryDigestsMatchTree: the resource and prompt digests written
// straight into the hasher are the hashes of ResourceBody and PromptBody,
// for absent and present optional fields and strings that need escaping.
func TestEntryDigestsMatchTree(t *testing.T) {
	odd := "\"q\"\\ \u00e9\u2028\x01\x1f\U0001F600 \xff"
	empty := ""
	strs := []*string{nil, &empty, &odd}
	h := &canon.Hasher{}
	for _, uri := range []string{"file:///r", odd, ""} {
		for _, name := range strs {
			for _, mime := range strs {
				r := Resource{URI: uri, Name: name, MimeType: mime, DescriptionHash: "sha256:" + uri}
				want, err := canon.Hash(ResourceBody(r))
				if err != nil {
					t.Fatal(err)
				}
				if got := resourceDigest(h, &r); got != want {
					t.Errorf("resource %+v: %s, the tree hashes to %s", r, got, want)
				}
			}
		}
		p := Prompt{Name: uri, DescriptionHash: odd, ArgumentsHash: "sha256:" + uri}
		want, err := canon.Hash(PromptBody(p))
		if err != nil {
			t.Fatal(err)
		}
		if got := promptDigest(h, &p); got != want {
			t.Errorf("prompt %+v: %s, the tree hashes to %s", p, got, want)
		}
	}
}
