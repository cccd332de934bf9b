package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestFleet(t *testing.T) {
	f, err := StartFleet(context.Background(), FleetConfig{Replicas: 3, Options: fastOptions()})
	if err != nil {
		t.Fatal(err)
	}
	urls := f.URLs()
	texts := map[string]bool{}
	for _, u := range urls {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Fatalf("url %s: want loopback", u)
		}
		// The same request id on every replica: different seeds give
		// different tokens.
		code, _, b := post(t, u+"/v1/completions", `{"prompt":"a","max_tokens":8}`)
		if code != 200 {
			t.Fatalf("%s: %d %s", u, code, b)
		}
		var r struct {
			Choices []struct {
				Text string `json:"text"`
			} `json:"choices"`
		}
		_ = json.Unmarshal([]byte(b), &r)
		texts[r.Choices[0].Text] = true
	}
	if len(texts) != 3 {
		t.Fatalf("replicas generated %d distinct texts, want 3 (per-replica seeds)", len(texts))
	}
	if l := f.Lateness(); l.Steps != 3*8 || l.Max < l.P99 || l.P99 < l.P50 {
		t.Fatalf("lateness %+v: want 24 steps, ordered quantiles", l)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(urls[0] + "/health"); err == nil {
		t.Fatal("replica still serving after Close")
	}
}

func TestFleetBasePort(t *testing.T) {
	for attempt := range 5 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		f, err := StartFleet(context.Background(), FleetConfig{Replicas: 2, BasePort: port, Options: fastOptions()})
		if err != nil {
			t.Logf("attempt %d: %v", attempt, err) // the next port was taken
			continue
		}
		defer f.Close()
		want := []string{fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://127.0.0.1:%d", port+1)}
		if got := f.URLs(); got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("urls %v, want %v", got, want)
		}
		return
	}
	t.Fatal("no two consecutive free ports found")
}

func TestFleetConfigErrors(t *testing.T) {
	bad := []FleetConfig{
		{Replicas: 0},
		{Replicas: 2, BasePort: 65535},
		{Replicas: 1, Options: Options{TimeScale: -1}},
	}
	for i, c := range bad {
		if f, err := StartFleet(context.Background(), c); err == nil {
			f.Close()
			t.Errorf("config %d: want error", i)
		}
	}
}
