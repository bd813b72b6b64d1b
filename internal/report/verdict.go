package report

import (
	"github.com/wardenlock/warden/internal/jsonv"
	"github.com/wardenlock/warden/internal/pyfmt"
)

// VerdictJSONL is the last --json record of a check: kind "verdict", the
// verdict (VerdictClean or VerdictDrift), how many drift items there are,
// the lock checked and whether findings are informational (always true:
// they never change the exit code). A consumer can tell a clean check
// from an empty or cut-off stream by this line alone.
func VerdictJSONL(verdict string, driftCount int, lockPath string) string {
	rec := jsonv.NewObject(
		jsonv.M("kind", jsonv.NewString("verdict")),
		jsonv.M("verdict", jsonv.NewString(verdict)),
		jsonv.M("drift_count", jsonv.NewInt(int64(driftCount))),
		jsonv.M("lock", jsonv.NewString(Clip(lockPath, MaxMessageBytes))),
		jsonv.M("findings_informational", jsonv.NewBool(true)),
	)
	return pyfmt.Dumps(rec, false) + "\n"
}

// ServerVerdictJSONL is VerdictJSONL for a run over several servers: the
// run's verdict (ServerCounts.Verdict), the drift items over all servers
// and the servers of each outcome.
func ServerVerdictJSONL(servers []ServerReport) string {
	c := CountServers(servers)
	n := 0
	for _, s := range servers {
		n += len(s.Drift)
	}
	rec := jsonv.NewObject(
		jsonv.M("kind", jsonv.NewString("verdict")),
		jsonv.M("verdict", jsonv.NewString(c.Verdict())),
		jsonv.M("drift_count", jsonv.NewInt(int64(n))),
		jsonv.M("servers", jsonv.NewObject(
			jsonv.M("clean", jsonv.NewInt(int64(c.Clean))),
			jsonv.M("drift", jsonv.NewInt(int64(c.Drift))),
			jsonv.M("failed", jsonv.NewInt(int64(c.Failed))),
			jsonv.M("skipped", jsonv.NewInt(int64(c.Skipped))),
		)),
		jsonv.M("findings_informational", jsonv.NewBool(true)),
	)
	return pyfmt.Dumps(rec, false) + "\n"
}
