package capture

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wardenlock/warden/internal/jsonv"
)

// Protocol selects the MCP protocol era a capture speaks.
type Protocol string

const (
	// ProtocolAuto probes with server/discover and speaks the 2026-07-28
	// revision when the server shows positive evidence of it, the 2025-era
	// initialize handshake otherwise (the specification's
	// backward-compatibility rules). It is the default.
	ProtocolAuto Protocol = "auto"
	// ProtocolModern speaks only the stateless 2026-07-28 revision: no
	// initialize, _meta on every request.
	ProtocolModern Protocol = "modern"
	// ProtocolLegacy speaks only the 2025-era handshake (initialize,
	// notifications/initialized, sessions on HTTP), as warden always did.
	ProtocolLegacy Protocol = "legacy"
)

// ParseProtocol reads a --protocol value; "" means ProtocolAuto.
func ParseProtocol(s string) (Protocol, error) {
	switch p := Protocol(s); p {
	case "":
		return ProtocolAuto, nil
	case ProtocolAuto, ProtocolModern, ProtocolLegacy:
		return p, nil
	}
	return "", fmt.Errorf("protocol must be auto, modern or legacy, not %s", quoteName(s))
}

// EraOf is the era a recorded protocol version belongs to (what a lock's
// pin.mcp_protocol_version says), or "" for a version warden does not know.
func EraOf(version string) Protocol {
	switch {
	case version == ModernProtocolVersion:
		return ProtocolModern
	case slices.Contains(LegacyProtocolVersions(), version):
		return ProtocolLegacy
	}
	return ""
}

// ModernProtocolVersion is the stateless revision warden speaks: the
// version it puts in every request's _meta and, once a server accepts it,
// in pin.mcp_protocol_version.
const ModernProtocolVersion = "2026-07-28"

// LegacyProtocolVersions are the 2025-era versions warden speaks, newest
// first. The first is offered in initialize; a server answering with any
// other version than these is refused, as the reference's SDK does.
func LegacyProtocolVersions() []string {
	return []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
}

// SupportedProtocolVersions are every version warden speaks, newest first.
func SupportedProtocolVersions() []string {
	return append([]string{ModernProtocolVersion}, LegacyProtocolVersions()...)
}

// Keys of the per-request envelope of the 2026-07-28 revision.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
)

// Bounds of the stdio era probe. The probe timer runs from the spawn, so a
// slow start (npx fetching a package, a cold runtime) counts against it:
// a third of the capture timeout, but at least minProbe (a cold modern
// server has been seen to take 6 s for its first reply) and at most
// maxProbe, and never more than half the timeout, so that a silent
// 2025-era server still has time for its handshake on a fresh process.
const (
	minProbe = 10 * time.Second
	maxProbe = 30 * time.Second
)

// probeTimeout is how long a stdio server gets to answer server/discover
// before it is taken for a 2025-era server that ignores unknown requests.
func probeTimeout(total time.Duration) time.Duration {
	p := min(max(total/3, minProbe), maxProbe)
	return min(p, total/2)
}

// envelope is the _meta member every modern request carries.
func envelope(version string) *jsonv.Value {
	return jsonv.NewObject(
		jsonv.M(metaProtocolVersion, jsonv.NewString(ModernProtocolVersion)),
		jsonv.M(metaClientInfo, jsonv.NewObject(
			jsonv.M("name", jsonv.NewString("warden")),
			jsonv.M("version", jsonv.NewString(version)),
		)),
		jsonv.M(metaClientCapabilities, jsonv.NewObject()),
	)
}

// verdict is what a server/discover probe says about the server's era.
type verdict int

const (
	// modern: a well-formed DiscoverResult listing ModernProtocolVersion.
	modern verdict = iota
	// legacy: anything that is not positive evidence of the modern era.
	legacy
)

// discovery is a well-formed DiscoverResult, reduced to what capture needs.
type discovery struct {
	versions []string
	caps     *jsonv.Value
}

// offers reports whether the server advertises the list capability name
// (tools, resources, prompts). A modern client calls a list only then.
func (d *discovery) offers(name string) bool {
	return !d.caps.Get(name).IsNull()
}

// parseDiscovery checks a server/discover result. The error names the
// field that is wrong, for the case where the server has already shown it is
// modern and a malformed result is a protocol violation rather than evidence
// of the other era.
func parseDiscovery(res *jsonv.Value) (*discovery, error) {
	if res.Kind != jsonv.Object {
		return nil, fmt.Errorf("result is %s, not an object", a(res.Kind))
	}
	sv := res.Get("supportedVersions")
	if sv == nil || sv.Kind != jsonv.Array {
		return nil, errors.New("result has no supportedVersions array")
	}
	d := &discovery{}
	for i, v := range sv.Items {
		s, ok := v.Str()
		if !ok {
			return nil, fmt.Errorf("supportedVersions[%d] is %s, not a string", i, a(v.Kind))
		}
		d.versions = append(d.versions, s)
	}
	d.caps = res.Get("capabilities")
	if d.caps == nil || d.caps.Kind != jsonv.Object {
		return nil, fmt.Errorf("capabilities is %s, not an object", kindOrMissing(d.caps))
	}
	if err := checkResultType(res); err != nil {
		return nil, err
	}
	return d, nil
}

// checkResultType checks a modern result's resultType: absent reads as
// "complete" (the specification's rule for results that predate it), any
// other value means the result is not the one asked for.
func checkResultType(res *jsonv.Value) error {
	rt := res.Get("resultType")
	if rt == nil {
		return nil
	}
	if s, ok := rt.Str(); !ok || s != "complete" {
		if ok {
			return fmt.Errorf("resultType is %s, not \"complete\"", quoteName(s))
		}
		return fmt.Errorf("resultType is %s, not the string \"complete\"", a(rt.Kind))
	}
	return nil
}

// checkCacheHints checks the type of a modern result's cache hints, which
// warden reads but never hashes: ttlMs a number, cacheScope a string.
func checkCacheHints(res *jsonv.Value) error {
	if t := res.Get("ttlMs"); t != nil && t.Kind != jsonv.Int && t.Kind != jsonv.Float {
		return fmt.Errorf("ttlMs is %s, not a number", a(t.Kind))
	}
	if err := optional(res, "cacheScope", jsonv.String); err != nil {
		return err
	}
	return nil
}

func kindOrMissing(v *jsonv.Value) string {
	if v == nil {
		return "missing"
	}
	return a(v.Kind)
}

// unsupportedVersion is the 2026-07-28 error for a version the server does
// not speak. Only this code with a non-empty list of supported versions is
// evidence of the modern era; every other error is something 2025-era servers
// say too.
const unsupportedVersion = -32022

// supportedList returns the versions of a -32022 error, or nil when err is
// not one or carries no usable list.
func supportedList(err error) []string {
	var rerr *rpcError
	if !errors.As(err, &rerr) || rerr.code != unsupportedVersion {
		return nil
	}
	return rerr.supported
}

// classifyProbe turns the reply to server/discover into a verdict. res is
// the result, or err the JSON-RPC error. A -32022 error whose list names only
// versions warden does not speak is a failure: no era fits.
func classifyProbe(res *jsonv.Value, err error) (verdict, *discovery, error) {
	if err != nil {
		supported := supportedList(err)
		switch {
		case supported == nil:
			return legacy, nil, nil
		case slices.Contains(supported, ModernProtocolVersion):
			return 0, nil, fmt.Errorf("server/discover: %w, although it lists it as supported", err)
		case sharesLegacy(supported):
			return legacy, nil, nil
		}
		return 0, nil, noCommonVersion(supported)
	}
	d, perr := parseDiscovery(res)
	if perr != nil || !slices.Contains(d.versions, ModernProtocolVersion) {
		// Not positive evidence: a draft-era version list, an
		// InitializeResult-like object, {}.
		return legacy, nil, nil
	}
	return modern, d, nil
}

// sharesLegacy reports whether a server's version list names a 2025-era
// version warden speaks.
func sharesLegacy(versions []string) bool {
	for _, v := range versions {
		if slices.Contains(LegacyProtocolVersions(), v) {
			return true
		}
	}
	return false
}

// fallsForward reports whether an error to initialize says the server speaks
// only the modern revision: -32022 naming ModernProtocolVersion.
func fallsForward(err error) bool {
	return slices.Contains(supportedList(err), ModernProtocolVersion)
}

func noCommonVersion(supported []string) error {
	return fmt.Errorf("server and warden share no protocol version: the server supports %s, warden speaks %s",
		quoteList(supported), strings.Join(SupportedProtocolVersions(), ", "))
}

// quoteList renders server-provided version strings for a message, escaped
// and capped.
func quoteList(vs []string) string {
	const most = 8
	var parts []string
	for i, v := range vs {
		if i == most {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-most))
			break
		}
		parts = append(parts, quoteName(v))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
