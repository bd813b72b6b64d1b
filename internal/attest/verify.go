package attest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

// MaxBundleBytes bounds a bundle: a real one is about 10 KB (a certificate,
// one log entry with its inclusion proof), so 1 MiB is generous.
const MaxBundleBytes = 1 << 20

// BundleMediaType is the only bundle format Verify accepts (and Sign writes).
const BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// Identity is the signer the user trusts: the certificate's subject
// alternative name (for GitHub Actions the workflow's URI with its ref) and
// the OIDC issuer that vouched for it, both compared exactly.
type Identity struct{ Subject, Issuer string }

// Result is what a successful verification established.
type Result struct {
	Statement Statement
	Identity  Identity
	// LogIndex is the Rekor entry's index in the log (the number a
	// reviewer looks up on search.sigstore.dev).
	LogIndex int64
}

// Verify checks that bundleJSON is a Sigstore bundle in which identity id
// signed statement st; see VerifyResult.
func (r *Root) Verify(bundleJSON []byte, st Statement, id Identity) error {
	_, err := r.VerifyResult(bundleJSON, st, id)
	return err
}

// VerifyResult checks that bundleJSON is a v0.3 messageSignature bundle over
// SHA-256(st.Canonical()), whose Fulcio certificate chains to r, was valid
// at the time a Rekor log in r integrated the entry (signed entry timestamp
// verified, inclusion proof verified), and names exactly id's subject and
// issuer. The checks are sigstore-go's verifier; what this adds is the
// policy and errors that say which part failed.
func (r *Root) VerifyResult(bundleJSON []byte, st Statement, id Identity) (*Result, error) {
	if id.Subject == "" || id.Issuer == "" {
		return nil, errors.New("verify signature: a certificate identity and an OIDC issuer are both required")
	}
	b, err := ParseBundle(bundleJSON)
	if err != nil {
		return nil, err
	}
	want := sha256.Sum256(st.Canonical())
	md := b.GetMessageSignature().GetMessageDigest()
	if !bytes.Equal(md.GetDigest(), want[:]) {
		return nil, fmt.Errorf("verify signature: the bundle signs another statement, not %s", st)
	}
	opts := []verify.VerifierOption{verify.WithTransparencyLog(1), verify.WithIntegratedTimestamps(1)}
	if r.requireSCT {
		opts = append(opts, verify.WithSignedCertificateTimestamps(1))
	}
	v, err := verify.NewVerifier(r.tm, opts...)
	if err != nil {
		return nil, fmt.Errorf("verify signature: %w", err)
	}
	cid, err := verify.NewShortCertificateIdentity(id.Issuer, "", id.Subject, "")
	if err != nil {
		return nil, fmt.Errorf("verify signature: %w", err)
	}
	res, err := v.Verify(b, verify.NewPolicy(verify.WithArtifact(bytes.NewReader(st.Canonical())), verify.WithCertificateIdentity(cid)))
	if err != nil {
		return nil, fmt.Errorf("verify signature: %s", explain(err, b, id))
	}
	if res.Signature == nil || res.Signature.Certificate == nil {
		return nil, errors.New("verify signature: the bundle was not signed with a certificate")
	}
	out := &Result{Statement: st, Identity: id, LogIndex: -1}
	if es := b.GetVerificationMaterial().GetTlogEntries(); len(es) > 0 {
		out.LogIndex = es[0].GetLogIndex()
	}
	return out, nil
}

// ParseBundle decodes a bundle and checks its form: at most MaxBundleBytes,
// media type v0.3, a messageSignature (not DSSE) with a SHA-256 digest, at
// least one transparency-log entry. It never panics on any input (see
// FuzzParseBundle).
func ParseBundle(bundleJSON []byte) (*bundle.Bundle, error) {
	if len(bundleJSON) > MaxBundleBytes {
		return nil, fmt.Errorf("read bundle: larger than %d bytes", MaxBundleBytes)
	}
	var b bundle.Bundle
	b.Bundle = new(protobundle.Bundle)
	if err := b.UnmarshalJSON(bundleJSON); err != nil {
		return nil, fmt.Errorf("read bundle: %s", clip(err.Error()))
	}
	if b.GetMediaType() != BundleMediaType {
		return nil, fmt.Errorf("read bundle: media type %s, want %s", quote(b.GetMediaType()), BundleMediaType)
	}
	ms := b.GetMessageSignature()
	if ms == nil {
		return nil, errors.New("read bundle: not a messageSignature bundle (a DSSE envelope is not a lock signature)")
	}
	if ms.GetMessageDigest().GetAlgorithm() != protocommon.HashAlgorithm_SHA2_256 {
		return nil, errors.New("read bundle: the message digest is not SHA-256")
	}
	if len(b.GetVerificationMaterial().GetTlogEntries()) == 0 {
		return nil, errors.New("read bundle: no transparency-log entry")
	}
	if b.GetVerificationMaterial().GetCertificate() == nil {
		return nil, errors.New("read bundle: no Fulcio certificate")
	}
	return &b, nil
}

// explain turns sigstore-go's error into one line saying which check
// failed. An identity mismatch names the certificate's actual value: the
// SAN and issuer of a Fulcio certificate are public (they are in the
// transparency log), and the reviewer needs them to see who signed.
func explain(err error, b *bundle.Bundle, id Identity) string {
	var nm *verify.ErrNoMatchingCertificateIdentity
	if errors.As(err, &nm) {
		if vc, verr := b.VerificationContent(); verr == nil && vc.Certificate() != nil {
			if sum, serr := certificate.SummarizeCertificate(vc.Certificate()); serr == nil {
				if sum.SubjectAlternativeName != id.Subject {
					return fmt.Sprintf("wrong identity: the certificate is for %s, not the trusted %s", quote(sum.SubjectAlternativeName), quote(id.Subject))
				}
				if sum.Issuer != id.Issuer {
					return fmt.Sprintf("wrong OIDC issuer: the certificate's issuer is %s, not the trusted %s", quote(sum.Issuer), quote(id.Issuer))
				}
			}
		}
		return "the certificate does not match the trusted identity"
	}
	if strings.Contains(err.Error(), "not enough verified log entries") {
		// sigstore-go skips an entry whose signed entry timestamp fails or
		// whose log the root does not know, then counts too few.
		return "no transparency-log entry verifies against the trusted root (its signed entry timestamp is wrong, or its log is not in the root): " + clip(err.Error())
	}
	return clip(err.Error())
}

// clip keeps an error from a parser on one bounded line.
func clip(s string) string {
	// protobuf's errors randomly use a no-break space; make them stable.
	s = strings.ReplaceAll(s, "\u00a0", " ")
	q := strconv.QuoteToASCII(s)
	q = q[1 : len(q)-1]
	if len(q) > 300 {
		q = q[:300] + "..."
	}
	return q
}
