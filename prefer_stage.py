import sys; sys.path.insert(0,'/tmp/mine')
from apply import *
s=head('internal/capture/capture.go')
s=rep(s,'''	// Protocol is the protocol era to speak; "" means ProtocolAuto.
	Protocol Protocol
''','''	// Protocol is the protocol era to speak; "" means ProtocolAuto.
	Protocol Protocol
	// Prefer, under ProtocolAuto, is the era to try first: the era a lock
	// was pinned in, so that a check speaks to a server that serves both
	// eras in the era its lock recorded, whatever its start-up time.
	// ProtocolLegacy sends initialize first (still moving to the modern
	// era when initialize is refused with -32022 naming it);
	// ProtocolModern probes with server/discover and waits longer for it
	// before taking silence for a 2025-era server. "" is no preference.
	Prefer Protocol
''')
s=rep(s,'''	cfg.Protocol = p''','''	cfg.Protocol = p
	if o.Prefer != "" && o.Prefer != ProtocolModern && o.Prefer != ProtocolLegacy {
		return nil, fmt.Errorf("capture: preferred era %s is not modern or legacy", quoteName(string(o.Prefer)))
	}''')
stage('internal/capture/capture.go', s)
s=head('internal/ops/ops.go')
s=rep(s,'''	o.Target.Version = o.Version
	s, err := Capture(ctx, o.Target)
	if err != nil {
		return nil, err
	}
	cur, err := lock.Build(s)''','''	o.Target.Version = o.Version
	// A server that serves both eras is spoken to in the era its lock was
	// pinned in, so that how fast it starts cannot change which items it
	// declares (some servers declare different items per era).
	if o.Target.Protocol == "" || o.Target.Protocol == capture.ProtocolAuto {
		o.Target.Prefer = capture.EraOf(base.Pin.MCPProtocolVersion)
	}
	s, err := Capture(ctx, o.Target)
	if err != nil {
		return nil, err
	}
	cur, err := lock.Build(s)''')
stage('internal/ops/ops.go', s)
