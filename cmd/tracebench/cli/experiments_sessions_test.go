package cli

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracebench/tracebench/metrics"
)

// TestExperimentAgenticClosedLoop is experiment 10 on the 60 agentic
// coding sessions, scaled to a 4-replica simulated fleet and replayed
// 500× faster: open-loop, nearly every follow-up leaves before its answer
// and the fleet drowns (under 20 % of requests meet the SLO whatever the
// router); closed-loop, none does, and prefix-cache meets the SLO for at
// least 8 points more requests than round-robin.
func TestExperimentAgenticClosedLoop(t *testing.T) {
	skipSlowUnderRace(t)
	dir := experimentTrace(t, "agentic-coding")
	small := filepath.Join(t.TempDir(), "agentic-small.jsonl")
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"trace", "convert", dir, "--agentic-scale", "0.1", "--agentic-max-input", "6144",
		"-o", small}, &stdout, &stderr); code != ExitOK {
		t.Fatalf("trace convert: exit %d: %s", code, stderr.String())
	}
	attain := map[string]float64{}
	for _, pacing := range []string{"open", "closed"} {
		for _, router := range []string{"round-robin", "prefix-cache"} {
			out, _ := simReplay(t, "replay", "--trace", small, "--sim", "4", "--time-scale", "0.002",
				"--sessions", pacing, "--policy", router)
			o := metrics.DefaultOptions()
			o.SLO = metrics.SLO{TTFT: 2 * time.Second, TPOT: 100 * time.Millisecond}
			s, err := metrics.Summarize(out, o)
			if err != nil {
				t.Fatal(err)
			}
			if s.Sessions == nil {
				t.Fatalf("%s %s: no sessions in the summary", pacing, router)
			}
			ss := s.Sessions
			t.Logf("%s %-12s SLA %.1f %%, hit %.1f %%, early %d of %d, fleet share %.1f %%, session p50 %.1f s",
				pacing, router, 100*s.SLA.Attainment, 100*s.HitRate.Server, ss.Early, ss.FollowUps,
				100*ss.FleetShare, ss.Time.P50/1e3)
			attain[pacing+" "+router] = s.SLA.Attainment
			switch {
			case pacing == "closed" && ss.Early != 0:
				t.Errorf("closed %s: %d turns sent before their predecessor ended", router, ss.Early)
			case pacing == "open" && float64(ss.Early) < 0.9*float64(ss.FollowUps):
				t.Errorf("open %s: only %d of %d follow-ups early; the experiment needs an overloaded open loop",
					router, ss.Early, ss.FollowUps)
			}
		}
	}
	if a := attain["open prefix-cache"]; a >= 0.2 {
		t.Errorf("open-loop prefix-cache met the SLO for %.1f %% of requests, want under 20 %% (overload)", 100*a)
	}
	if d := attain["closed prefix-cache"] - attain["closed round-robin"]; d < 0.08 {
		t.Errorf("closed-loop prefix-cache over round-robin: %+.1f pt, want at least +8", 100*d)
	}
}
