package mockserver

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// BenchmarkSSEEncode measures building and writing one token chunk of
// each API: simulated tokens per second on one core.
func BenchmarkSSEEncode(b *testing.B) {
	for _, chat := range []bool{false, true} {
		b.Run(fmt.Sprintf("chat=%v", chat), func(b *testing.B) {
			enc := newEncoder(chat, "cmpl-123456", 1700000000, "mock-model")
			var buf []byte
			for b.Loop() {
				buf = enc.token(buf[:0], " token", "")
				_, _ = io.Discard.Write(buf)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkStreamHTTP measures whole streamed responses through a real
// loopback server and client with the model clock run a million times
// faster than real time, so the HTTP and SSE path is the bottleneck:
// simulated tokens per second, in total and per core (GOMAXPROCS), with
// the client's parsing on the same cores.
func BenchmarkStreamHTTP(b *testing.B) {
	const streams, tokens = 32, 500
	cfg := engine.DefaultConfig()
	cfg.MaxModelLen = 1 << 20 // long outputs
	_, base := startServer(b, Options{Engine: cfg, TimeScale: 1e-6})
	tr := &http.Transport{MaxIdleConnsPerHost: streams}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	body := fmt.Sprintf(`{"prompt":"a b c d","max_tokens":%d,"ignore_eos":true,"stream":true}`, tokens)
	total := 0
	for b.Loop() {
		var wg sync.WaitGroup
		counts := make([]int, streams)
		for i := range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[i] = countChunks(b, client, base+"/v1/completions", body)
			}()
		}
		wg.Wait()
		for _, c := range counts {
			total += c
		}
	}
	rate := float64(total) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "tokens/s")
	b.ReportMetric(rate/float64(runtime.GOMAXPROCS(0)), "tokens/s/core")
}

// countChunks streams one response and counts its token chunks.
func countChunks(b *testing.B, c *http.Client, url, body string) int {
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		b.Error(err)
		return 0
	}
	defer resp.Body.Close()
	n := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: {") {
			n++
		}
	}
	return n
}
