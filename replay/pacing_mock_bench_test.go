package replay_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// BenchmarkPacingMock drives a 4-replica bundled mock fleet (preset fast,
// in process, on loopback) with one second of short non-streaming
// requests (8-token prompt, 1 output token) at constant rates of 1,000 to
// 4,000 req/s, round-robin, and reports the achieved send rate (req/s),
// the p50, p99 and max schedule lag (ms) and the failed requests. It is
// the Go form of the command in docs/replay.md; run it on a quiet
// machine:
//
//	go test -run '^$' -bench PacingMock -benchtime 3x ./replay
func BenchmarkPacingMock(b *testing.B) {
	benchPacing(b, []int{1000, 2000, 3000, 4000}, func(b *testing.B) []string { return startFastFleet(b, 4) })
}

// benchPacing runs one sub-benchmark per rate, against the backends start
// returns (called once per rate); each op replays one second at that rate
// (pace), and it reports the mean achieved send rate (achieved-req/s), the
// p50, p99 and max schedule lag over all ops (ms) and the failed requests.
func benchPacing(b *testing.B, rates []int, start func(*testing.B) []string) {
	for _, rate := range rates {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) {
			urls := start(b)
			var lags []time.Duration
			var achieved float64
			failed := 0
			for i := 0; i < b.N; i++ {
				l, a, f := pace(b, urls, rate)
				lags, achieved, failed = append(lags, l...), achieved+a, failed+f
			}
			slices.Sort(lags)
			pct := func(p int) float64 { return float64(lags[(len(lags)-1)*p/100]) / 1e6 }
			b.ReportMetric(achieved/float64(b.N), "achieved-req/s")
			b.ReportMetric(pct(50), "p50-lag-ms")
			b.ReportMetric(pct(99), "p99-lag-ms")
			b.ReportMetric(pct(100), "max-lag-ms")
			b.ReportMetric(float64(failed), "failed")
		})
	}
}

// startFastFleet starts n mock replicas with the fast preset on loopback.
func startFastFleet(b *testing.B, n int) []string {
	b.Helper()
	cfg, err := profile.BuiltinConfig("fast")
	if err != nil {
		b.Fatal(err)
	}
	f, err := mockserver.StartFleet(context.Background(), mockserver.FleetConfig{Replicas: n,
		Options: mockserver.Options{Engine: cfg}})
	if err != nil {
		b.Fatalf("start mock fleet: %v", err)
	}
	b.Cleanup(func() { _ = f.Close() })
	return f.URLs()
}

// pace replays rate requests (8-token prompt, 1 output token, round-robin)
// spaced 1/rate apart and returns each request's schedule lag, the
// achieved send rate (req/s, from sent times) and the number of failed
// requests.
func pace(b *testing.B, urls []string, rate int) ([]time.Duration, float64, int) {
	reqs := make([]traces.Request, rate)
	for i := range reqs {
		reqs[i] = traces.Request{ID: fmt.Sprint(i), Arrival: time.Duration(i) * time.Second / time.Duration(rate),
			Prompt: "a b c d e f g h", InputTokens: 8, OutputTokens: 1}
	}
	r, _ := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 1)))
	q, _ := policies.NewQueue("fcfs", nil, nil)
	c := client.New(client.Options{Model: mockserver.DefaultModelName, FirstByteTimeout: 10 * time.Second,
		IdleTimeout: 10 * time.Second})
	defer c.Close()
	lags := make([]time.Duration, 0, rate)
	first, last := time.Duration(-1), time.Duration(0)
	failed := 0
	_, err := replay.Run(context.Background(), replay.Options{Common: replay.Common{Source: traces.NewSliceSource(reqs),
		Router: r, Queue: q, OnResult: func(res *results.Result) {
			lags = append(lags, res.ScheduleLag())
			if first < 0 || res.Sent < first {
				first = res.Sent
			}
			last = max(last, res.Sent)
			if !res.OK() {
				failed++
			}
		}},
		Backends: urls, Client: c})
	if err != nil {
		b.Fatal(err)
	}
	return lags, float64(len(lags)-1) / (last - first).Seconds(), failed
}
