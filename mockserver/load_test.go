package mockserver

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// skipLoad skips timing-sensitive load tests in -short and -race runs.
func skipLoad(t *testing.T) {
	t.Helper()
	if testing.Short() || raceEnabled {
		t.Skip("load test: skipped with -short and -race (timings would measure the race detector)")
	}
}

// loadResult is what a load run measured at the client.
type loadResult struct {
	meanTBT  time.Duration // mean over streams of the mean gap in the window
	streams  int
	failures int
}

// loadRun opens n concurrent streams spread round-robin over urls, each
// asking for maxTokens tokens, and averages per stream the gaps between
// chunks from..to (the window where every stream is in the batch).
func loadRun(t *testing.T, urls []string, n, maxTokens, from, to int) loadResult {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	means := make([]float64, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	res := loadResult{streams: n}
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			body := fmt.Sprintf(`{"prompt":%s,"max_tokens":%d,"ignore_eos":true,"stream":true}`, tokenPrompt(8, i), maxTokens)
			times, err := streamTimes(client, urls[i%len(urls)]+"/v1/completions", body)
			if err != nil || len(times) < to {
				mu.Lock()
				res.failures++
				mu.Unlock()
				return
			}
			means[i] = float64(times[to-1].Sub(times[from-1])) / float64(to-from)
		}()
	}
	close(start)
	wg.Wait()
	var sum float64
	for _, m := range means {
		sum += m
	}
	res.meanTBT = time.Duration(sum / float64(n-res.failures))
	return res
}

// streamTimes posts body and returns the arrival time of each token chunk.
func streamTimes(c *http.Client, url, body string) ([]time.Time, error) {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var times []time.Time
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && d != "[DONE]" {
			times = append(times, time.Now())
		}
	}
	return times, sc.Err()
}

func TestFidelity256Streams(t *testing.T) {
	skipLoad(t)
	opts := Options{Engine: engine.DefaultConfig()}
	s, base := startServer(t, opts)
	const n, tokens = 256, 200
	res := loadRun(t, []string{base}, n, tokens, 11, 191)
	want := opts.Engine.Latency.Mean(0, n)
	dev := float64(res.meanTBT)/float64(want) - 1
	late := s.Lateness()
	t.Logf("256 streams, one replica: mean TBT at the client %v, model %v (%+.2f %%); step lateness p50 %v p99 %v max %v over %d steps, %d resyncs",
		res.meanTBT, want, 100*dev, late.P50, late.P99, late.Max, late.Steps, late.Resyncs)
	if res.failures > 0 {
		t.Fatalf("%d of %d streams failed", res.failures, n)
	}
	if late.Resyncs > 0 {
		t.Skipf("the machine could not give the mock its time: %d steps ended over 100 ms late (max %v) and the "+
			"schedule was re-anchored; fidelity is claimed only while the mock keeps time", late.Resyncs, late.Max)
	}
	if math.Abs(dev) > 0.05 {
		t.Fatalf("mean TBT %v is %+.1f %% off the model's %v (want within 5 %%)", res.meanTBT, 100*dev, want)
	}
}

func TestLateness1000StreamsOn4Replicas(t *testing.T) {
	skipLoad(t)
	opts := Options{Engine: engine.DefaultConfig()}
	f, err := StartFleet(context.Background(), FleetConfig{Replicas: 4, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const n, tokens = 1000, 100
	res := loadRun(t, f.URLs(), n, tokens, 21, 91)
	want := opts.Engine.Latency.Mean(0, n/4)
	late := f.Lateness()
	t.Logf("1000 streams on 4 replicas: mean TBT at the client %v, model %v (%+.2f %%); step lateness p50 %v p99 %v max %v over %d steps, %d resyncs",
		res.meanTBT, want, 100*(float64(res.meanTBT)/float64(want)-1), late.P50, late.P99, late.Max, late.Steps, late.Resyncs)
	if res.failures > 0 {
		t.Fatalf("%d of %d streams failed", res.failures, n)
	}
	if late.Steps < 4*tokens || late.P99 < late.P50 || late.Max < late.P99 {
		t.Fatalf("lateness %+v: want ≥ %d steps and ordered quantiles", late, 4*tokens)
	}
	m := scrape(t, f.URLs()[0])
	if m["tracebench_mock_step_lateness_seconds_count"] < tokens {
		t.Fatalf("lateness summary not exposed: %v", m)
	}
}
