package action

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// Event names warden reviews: the pull request events. Every other event
// (push, workflow_dispatch, schedule, …) has no pull request to comment on.
const (
	EventPullRequest       = "pull_request"
	EventPullRequestTarget = "pull_request_target"
)

// MaxEventBytes bounds the event payload warden reads (GITHUB_EVENT_PATH).
// GitHub caps webhook payloads at 25 MB.
const MaxEventBytes = 32 << 20

// Event is what warden takes from the workflow run's event: the pull
// request's number, its base and head commits and repositories. The
// payload also carries text the pull request's author controls (title,
// body, branch names); none of it is read.
type Event struct {
	// Name is GITHUB_EVENT_NAME.
	Name string
	// Number is the pull request's number.
	Number int
	// BaseSHA and HeadSHA are the base and head commits (hexadecimal).
	BaseSHA, HeadSHA string
	// BaseRepo and HeadRepo are "owner/name". HeadRepo is empty when the
	// head repository no longer exists (a deleted fork).
	BaseRepo, HeadRepo string
}

// IsPullRequest reports whether name is a pull request event warden
// reviews.
func IsPullRequest(name string) bool {
	return name == EventPullRequest || name == EventPullRequestTarget
}

// Fork reports whether the pull request comes from another repository than
// the one it targets (or from one that was deleted). Repository names are
// compared without regard to case, as GitHub does.
func (e Event) Fork() bool {
	return e.HeadRepo == "" || !strings.EqualFold(e.HeadRepo, e.BaseRepo)
}

// Owner and Repo split BaseRepo, the repository the pull request targets.
func (e Event) Owner() string { o, _, _ := strings.Cut(e.BaseRepo, "/"); return o }

// Repo returns the name part of BaseRepo.
func (e Event) Repo() string { _, r, _ := strings.Cut(e.BaseRepo, "/"); return r }

// The shapes ParseEvent accepts: commit ids as the runner writes them
// (SHA-1 or SHA-256, lower-case hex), and repository names as GitHub
// allows them (owner: letters, digits and single hyphens, at most 39;
// name: letters, digits, '.', '_' and '-', at most 100, not "." or "..").
var (
	commitPattern = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)
	repoPattern   = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)
)

// prPayload is the part of a pull_request payload warden reads.
type prPayload struct {
	PullRequest *struct {
		Number int64 `json:"number"`
		Base   struct {
			SHA  string `json:"sha"`
			Repo *struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"base"`
		Head struct {
			SHA  string `json:"sha"`
			Repo *struct {
				FullName string `json:"full_name"`
			} `json:"repo"`
		} `json:"head"`
	} `json:"pull_request"`
}

// ParseEvent reads the pull request from the payload of a pull_request or
// pull_request_target event named name. It checks every value it returns:
// a positive number, hexadecimal commit ids and well-formed repository
// names, so they can be put into API paths and git arguments as they are.
// A head repository of null (a deleted fork) is returned as HeadRepo "".
func ParseEvent(name string, payload []byte) (Event, error) {
	ev := Event{Name: name}
	if !IsPullRequest(name) {
		return ev, fmt.Errorf("event %q is not a pull request event", name)
	}
	var p prPayload
	dec := json.NewDecoder(bytes.NewReader(payload))
	if err := dec.Decode(&p); err != nil {
		return ev, fmt.Errorf("parse the %s event payload: %w", name, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return ev, fmt.Errorf("parse the %s event payload: data after the JSON object", name)
	}
	pr := p.PullRequest
	if pr == nil {
		return ev, fmt.Errorf("the %s event payload has no pull_request object", name)
	}
	if pr.Number < 1 || pr.Number > 1<<31-1 {
		return ev, fmt.Errorf("the %s event payload: pull_request.number %d is not a pull request number", name, pr.Number)
	}
	ev.Number = int(pr.Number)
	for _, c := range []struct {
		field, value string
		dst          *string
	}{
		{"pull_request.base.sha", pr.Base.SHA, &ev.BaseSHA},
		{"pull_request.head.sha", pr.Head.SHA, &ev.HeadSHA},
	} {
		if !commitPattern.MatchString(c.value) {
			return ev, fmt.Errorf("the %s event payload: %s is not a commit id", name, c.field)
		}
		*c.dst = c.value
	}
	if pr.Base.Repo == nil || !validRepoName(pr.Base.Repo.FullName) {
		return ev, fmt.Errorf("the %s event payload: pull_request.base.repo.full_name is not owner/name", name)
	}
	ev.BaseRepo = pr.Base.Repo.FullName
	if pr.Head.Repo != nil {
		if !validRepoName(pr.Head.Repo.FullName) {
			return ev, fmt.Errorf("the %s event payload: pull_request.head.repo.full_name is not owner/name", name)
		}
		ev.HeadRepo = pr.Head.Repo.FullName
	}
	return ev, nil
}

// validRepoName reports whether s is "owner/name" as GitHub allows it.
func validRepoName(s string) bool {
	if !repoPattern.MatchString(s) {
		return false
	}
	owner, name, _ := strings.Cut(s, "/")
	return !strings.Contains(owner, "--") && !strings.HasSuffix(owner, "-") && name != "." && name != ".."
}

// ReadEvent reads the event payload at path (GITHUB_EVENT_PATH): a regular
// file of at most MaxEventBytes, and parses it with ParseEvent.
func ReadEvent(name, path string) (Event, error) {
	if path == "" {
		return Event{Name: name}, errors.New("GITHUB_EVENT_PATH is not set")
	}
	data, err := readBounded(path, MaxEventBytes)
	if err != nil {
		return Event{Name: name}, fmt.Errorf("read the event payload: %w", err)
	}
	return ParseEvent(name, data)
}

// readBounded reads the regular file at path, refusing anything else
// (a FIFO would block, a device could be endless) and more than max bytes.
func readBounded(path string, max int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if info.Size() > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, nil
}
