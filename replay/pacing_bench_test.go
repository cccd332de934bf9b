package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/traces"
)

// BenchmarkPacing replays one second of short non-streaming requests at
// constant rates against a loopback server that answers at once, and
// reports the achieved rate (req/s) and the p99 and max schedule lag (ms).
// The documented command driving the bundled mock is in docs/replay.md.
func BenchmarkPacing(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"index":0,"text":"x","finish_reason":"length"}],"usage":{"prompt_tokens":8,"completion_tokens":1}}`)
	}))
	defer srv.Close()
	for _, rate := range []int{1000, 2000, 4000} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) {
			var lags []time.Duration
			var achieved float64
			for i := 0; i < b.N; i++ {
				l, a := paceOnce(b, srv.URL, rate)
				lags, achieved = append(lags, l...), achieved+a
			}
			slices.Sort(lags)
			b.ReportMetric(achieved/float64(b.N), "achieved-req/s")
			b.ReportMetric(float64(lags[len(lags)*99/100])/1e6, "p99-lag-ms")
			b.ReportMetric(float64(lags[len(lags)-1])/1e6, "max-lag-ms")
		})
	}
}

// paceOnce runs rate requests spaced 1/rate apart and returns each
// request's schedule lag and the achieved send rate.
func paceOnce(b *testing.B, url string, rate int) ([]time.Duration, float64) {
	reqs := make([]traces.Request, rate)
	for i := range reqs {
		reqs[i] = traces.Request{ID: fmt.Sprint(i), Arrival: time.Duration(i) * time.Second / time.Duration(rate),
			Prompt: "a b c d e f g h", InputTokens: 8, OutputTokens: 1}
	}
	r, _ := policies.NewRouter("round-robin", nil, rand.New(rand.NewPCG(1, 1)))
	q, _ := policies.NewQueue("fcfs", nil, nil)
	var lags []time.Duration
	var meter rateMeter
	_, err := Run(context.Background(), Options{Source: traces.NewSliceSource(reqs), Router: r, Queue: q,
		Backends: []string{url}, Client: NewClient(ClientOptions{Model: "m"}),
		OnResult: func(res *Result) { lags = append(lags, res.ScheduleLag()); meter.add(res) }})
	if err != nil {
		b.Fatal(err)
	}
	return lags, meter.extra()["achieved_rate"]
}
