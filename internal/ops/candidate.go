package ops

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/wardenlock/warden/internal/lock"
	"github.com/wardenlock/warden/internal/mask"
)

// CandidateOptions configure Candidate.
type CandidateOptions struct {
	// Version is warden's version, written to the lock.
	Version string
	// Actor and Environment are recorded in pin.pinner.
	Actor, Environment string
	// Now is the clock (tests fix it); nil means time.Now.
	Now func() time.Time
	// AllowSecretInLock returns the lock even when a value it stores
	// verbatim matches a secret pattern (see StoredSecretError).
	AllowSecretInLock bool
	// Handed are the values handed to the server (see PinOptions.Handed).
	Handed *mask.Set
}

// Candidate returns the lock a pin would have written from a check's
// capture: the current surface with its findings and a fresh pin block,
// never approved. A workflow can keep it as an artifact or, once a person
// has reviewed and approved it, commit it in place of the lock. Like Pin it
// refuses (with a *StoredSecretError) a lock that would store a secret
// verbatim. res.Current is not modified, but for reading again the
// skeletons it was left without (CheckResult.Load).
func Candidate(ctx context.Context, res *CheckResult, o CandidateOptions) (*lock.Lock, error) {
	if res == nil || res.Current == nil {
		return nil, errors.New("candidate lock: the check captured nothing")
	}
	if err := res.Current.Load(ctx); err != nil {
		return nil, fmt.Errorf("candidate lock: %w", err)
	}
	l := *res.Current
	if !o.AllowSecretInLock {
		if err := storedSecrets(&l); err != nil {
			return nil, fmt.Errorf("candidate lock: %w", err)
		}
	}
	l.Findings = append([]lock.Finding{}, res.Findings...)
	if !o.AllowSecretInLock {
		if err := storedHandedSecrets(&l, o.Handed); err != nil {
			return nil, fmt.Errorf("candidate lock: %w", err)
		}
	}
	l.WardenVersion = o.Version
	l.Pin = lock.NewPin(lock.PinInfo{
		Version:         o.Version,
		ProtocolVersion: res.ProtocolVersion,
		Now:             now(o.Now),
		Actor:           o.Actor,
		Environment:     o.Environment,
	}, l.OverallDigest)
	// The errors the check accepted again are what a pin accepting the
	// same would record; the lists that answered are pinned as answered.
	for _, a := range res.Accepted {
		if a.Occurred {
			l.Pin.AcceptedListErrors = append(l.Pin.AcceptedListErrors, lock.AcceptedListError{List: a.List, Code: a.Code})
		}
	}
	return &l, nil
}
