package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracebench/tracebench/internal/pace"
	"github.com/tracebench/tracebench/mockserver"
)

// BenchmarkGatewayAddedLatency measures what the gateway adds to a
// request: one paced open-loop stream at the given rate alternates
// requests straight to the mock and through the gateway in front of the
// same mock, so both halves see the same machine in the same run. A
// request's latency is from its send to the end of the answer (one
// output token, not streamed). It reports the p50 and p99 of each half,
// what the gateway adds to them, and the p99 ratio.
//
//	go test -run '^$' -bench GatewayAddedLatency -benchtime 4000x ./gateway/
func BenchmarkGatewayAddedLatency(b *testing.B) {
	for _, rate := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("rate=%d", rate), func(b *testing.B) { benchAdded(b, rate) })
	}
}

// benchAdded runs b.N requests at rate req/s, half of them through the
// gateway.
func benchAdded(b *testing.B, rate int) {
	mock := startMocks(b, 1, mockserver.Options{TimeScale: 0.001})
	tg := startGateway(b, mock, gwConfig{router: "prefix-cache"})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096, DisableCompression: true}}
	defer hc.CloseIdleConnections()
	lat := make([]time.Duration, b.N)
	failed := make([]error, b.N)
	interval := time.Second / time.Duration(rate)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		pace.Until(context.Background(), timer, start.Add(time.Duration(i)*interval))
		base := mock[0]
		if i%2 == 1 {
			base = tg.url
		}
		wg.Go(func() { lat[i], failed[i] = timedRequest(hc, base) })
	}
	wg.Wait()
	b.StopTimer()
	for i, err := range failed {
		if err != nil {
			b.Fatalf("request %d: %v", i, err)
		}
	}
	reportAdded(b, lat)
}

// timedRequest sends one short completion and reads the whole answer.
func timedRequest(hc *http.Client, base string) (time.Duration, error) {
	t0 := time.Now()
	resp, err := hc.Post(base+"/v1/completions", "application/json",
		strings.NewReader(`{"model":"mock-model","prompt":"hello world","max_tokens":1}`))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	return time.Since(t0), nil
}

// reportAdded reports the percentiles of the direct (even) and gateway
// (odd) requests and their differences, in milliseconds.
func reportAdded(b *testing.B, lat []time.Duration) {
	var direct, through []time.Duration
	for i, d := range lat {
		if i%2 == 0 {
			direct = append(direct, d)
		} else {
			through = append(through, d)
		}
	}
	if len(through) == 0 {
		return
	}
	slices.Sort(direct)
	slices.Sort(through)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	d50, d99 := quantile(direct, 0.5), quantile(direct, 0.99)
	g50, g99 := quantile(through, 0.5), quantile(through, 0.99)
	b.ReportMetric(ms(d50), "direct-p50-ms")
	b.ReportMetric(ms(d99), "direct-p99-ms")
	b.ReportMetric(ms(g50), "gateway-p50-ms")
	b.ReportMetric(ms(g99), "gateway-p99-ms")
	b.ReportMetric(ms(g50-d50), "added-p50-ms")
	b.ReportMetric(ms(g99-d99), "added-p99-ms")
	b.ReportMetric(float64(g99)/float64(d99), "p99-ratio")
}

// quantile is the q-quantile of sorted ds (nearest rank).
func quantile(ds []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(ds))+0.5) - 1
	return ds[min(max(i, 0), len(ds)-1)]
}
