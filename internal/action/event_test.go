package action

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const (
	sha1Base = "0123456789abcdef0123456789abcdef01234567"
	sha1Head = "89abcdef0123456789abcdef0123456789abcdef"
)

// prJSON is a pull_request payload with the given number, head repository
// (JSON) and base commit.
func prJSON(number, headRepo, baseSHA string) string {
	return `{"action":"opened","number":` + number + `,"pull_request":{"number":` + number + `,"title":"::error::x","base":{"sha":"` + baseSHA +
		`","ref":"main","repo":{"full_name":"octo/repo","fork":false}},"head":{"sha":"` + sha1Head + `","ref":"x","repo":` + headRepo + `}}}`
}

func TestParseEvent(t *testing.T) {
	same := `{"full_name":"octo/repo"}`
	tests := []struct {
		name, event, payload string
		want                 Event
		fork                 bool
		wantErr              string
	}{
		{"same repository", "pull_request", prJSON("7", same, sha1Base),
			Event{Name: "pull_request", Number: 7, BaseSHA: sha1Base, HeadSHA: sha1Head, BaseRepo: "octo/repo", HeadRepo: "octo/repo"}, false, ""},
		{"target event, case differs", "pull_request_target", prJSON("7", `{"full_name":"Octo/Repo"}`, sha1Base),
			Event{Name: "pull_request_target", Number: 7, BaseSHA: sha1Base, HeadSHA: sha1Head, BaseRepo: "octo/repo", HeadRepo: "Octo/Repo"}, false, ""},
		{"fork", "pull_request", prJSON("7", `{"full_name":"mallory/repo"}`, sha1Base),
			Event{Name: "pull_request", Number: 7, BaseSHA: sha1Base, HeadSHA: sha1Head, BaseRepo: "octo/repo", HeadRepo: "mallory/repo"}, true, ""},
		{"deleted fork", "pull_request", prJSON("7", "null", sha1Base),
			Event{Name: "pull_request", Number: 7, BaseSHA: sha1Base, HeadSHA: sha1Head, BaseRepo: "octo/repo"}, true, ""},
		{"sha256 commits", "pull_request", prJSON("7", same, strings.Repeat("a", 64)),
			Event{Name: "pull_request", Number: 7, BaseSHA: strings.Repeat("a", 64), HeadSHA: sha1Head, BaseRepo: "octo/repo", HeadRepo: "octo/repo"}, false, ""},
		{"push", "push", `{"ref":"refs/heads/main"}`, Event{}, false, "not a pull request event"},
		{"no pull_request", "pull_request", `{"number":1}`, Event{}, false, "no pull_request object"},
		{"not JSON", "pull_request", `{"pull_request":`, Event{}, false, "parse the pull_request event payload"},
		{"trailing data", "pull_request", prJSON("7", same, sha1Base) + `{}`, Event{}, false, "data after the JSON object"},
		{"number zero", "pull_request", prJSON("0", same, sha1Base), Event{}, false, "not a pull request number"},
		{"number huge", "pull_request", prJSON("99999999999", same, sha1Base), Event{}, false, "not a pull request number"},
		{"number fraction", "pull_request", prJSON("1.5", same, sha1Base), Event{}, false, "parse"},
		{"short sha", "pull_request", prJSON("7", same, "abc"), Event{}, false, "pull_request.base.sha is not a commit id"},
		{"sha option", "pull_request", prJSON("7", same, "--upload-pack=touch${IFS}x"), Event{}, false, "is not a commit id"},
		{"upper-case sha", "pull_request", prJSON("7", same, strings.ToUpper(sha1Base)), Event{}, false, "is not a commit id"},
		{"head repo path", "pull_request", prJSON("7", `{"full_name":"../../etc"}`, sha1Base), Event{}, false, "head.repo.full_name is not owner/name"},
		{"head repo query", "pull_request", prJSON("7", `{"full_name":"o/r?x=1"}`, sha1Base), Event{}, false, "head.repo.full_name"},
		{"base repo missing", "pull_request", `{"pull_request":{"number":1,"base":{"sha":"` + sha1Base + `"},"head":{"sha":"` + sha1Head + `"}}}`,
			Event{}, false, "base.repo.full_name is not owner/name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEvent(tt.event, []byte(tt.payload))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseEvent = %+v, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || got.Fork() != tt.fork || got.Owner() != "octo" || got.Repo() != "repo" {
				t.Errorf("got %+v (fork %v, %s/%s), want %+v (fork %v)", got, got.Fork(), got.Owner(), got.Repo(), tt.want, tt.fork)
			}
		})
	}
}

func TestValidRepoName(t *testing.T) {
	for name, want := range map[string]bool{
		"octo/repo": true, "a/b": true, "a-b/c.d_e": true, "o/.github": true,
		"": false, "o": false, "o/": false, "/r": false, "o/r/x": false, "-o/r": false, "o-/r": false, "o--x/r": false,
		"o/.": false, "o/..": false, "o/r x": false, "o/r%2f": false, strings.Repeat("a", 40) + "/r": false, "o/" + strings.Repeat("r", 101): false,
	} {
		if got := validRepoName(name); got != want {
			t.Errorf("validRepoName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestReadEvent(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "event.json")
	if err := os.WriteFile(good, []byte(prJSON("3", `{"full_name":"octo/repo"}`, sha1Base)), 0o644); err != nil {
		t.Fatal(err)
	}
	if ev, err := ReadEvent("pull_request", good); err != nil || ev.Number != 3 {
		t.Errorf("ReadEvent = %+v, %v", ev, err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxEventBytes+1); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"":                         "GITHUB_EVENT_PATH is not set",
		filepath.Join(dir, "none"): "no such file",
		dir:                        "not a regular file",
		fifo:                       "not a regular file",
		big:                        "larger than",
	} {
		if _, err := ReadEvent("pull_request", path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadEvent(%q) = %v, want %q", path, err, want)
		}
	}
}

// FuzzParseEvent: whatever the payload, ParseEvent does not panic, and
// what it accepts is safe to put into API paths and git arguments.
func FuzzParseEvent(f *testing.F) {
	f.Add("pull_request", prJSON("7", `{"full_name":"octo/repo"}`, sha1Base))
	f.Add("pull_request_target", prJSON("1", "null", strings.Repeat("f", 64)))
	f.Add("pull_request", prJSON("7", `{"full_name":"a/b"}`, sha1Base)+" ")
	f.Add("pull_request", `{"pull_request":{"number":1e3}}`)
	f.Add("pull_request", `{"pull_request":null}`)
	f.Add("push", `{}`)
	f.Fuzz(func(t *testing.T, name, payload string) {
		ev, err := ParseEvent(name, []byte(payload))
		if err != nil {
			return
		}
		if !IsPullRequest(ev.Name) || ev.Number < 1 || !commitPattern.MatchString(ev.BaseSHA) || !commitPattern.MatchString(ev.HeadSHA) ||
			!validRepoName(ev.BaseRepo) || (ev.HeadRepo != "" && !validRepoName(ev.HeadRepo)) {
			t.Fatalf("accepted an unsafe event %+v", ev)
		}
		for _, s := range []string{ev.BaseRepo, ev.HeadRepo} {
			if strings.ContainsAny(s, "?#%\\ \n\r\x00") || strings.Count(s, "/") > 1 {
				t.Fatalf("unsafe repository %q", s)
			}
			for _, seg := range strings.Split(s, "/") {
				if seg == ".." || seg == "." {
					t.Fatalf("unsafe repository %q", s)
				}
			}
		}
		if strings.HasPrefix(ev.BaseSHA, "-") || strings.HasPrefix(ev.HeadSHA, "-") {
			t.Fatalf("a commit id that git would read as an option: %+v", ev)
		}
	})
}
