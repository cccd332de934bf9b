package policies

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tracebench/tracebench/traces"
)

// BenchmarkQueueRelease measures one Arrive + Release + Done cycle per
// Queue at 8, 64 and 512 Backends with room, with 64 Requests of 8 users
// kept waiting so every Release has a choice to make.
func BenchmarkQueueRelease(b *testing.B) {
	queues := []struct {
		label, name string
		p           Params
	}{
		{"fcfs", "fcfs", nil},
		{"multi-bin-static", "multi-bin", Params{"boundaries": traces.ParamString("64,128,256")}},
		{"multi-bin-continuous", "multi-bin", Params{"boundaries": traces.ParamString("64,128,256"), "mode": traces.ParamString("continuous")}},
		{"vtc", "vtc", nil},
		{"lcf", "lcf", nil},
		{"rpm", "rpm", Params{"rpm": traces.ParamInt(1000000000)}},
	}
	for _, qc := range queues {
		for _, n := range []int{8, 64, 512} {
			name := fmt.Sprintf("%s/backends=%d", qc.label, n)
			b.Run(name, func(b *testing.B) { benchRelease(b, qc.name, qc.p, n) })
		}
	}
}

func benchRelease(b *testing.B, name string, p Params, n int) {
	q, err := NewQueue(name, p, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	mk := func(i int) *traces.Request {
		return &traces.Request{ID: fmt.Sprint(i), User: fmt.Sprintf("u%d", i%8), Arrival: time.Duration(i),
			InputTokens: 100, OutputTokens: 1 + rng.IntN(500)}
	}
	st := State{Backends: make([]Backend, n)}
	for i := range st.Backends {
		st.Backends[i] = Backend{Index: i}
	}
	// a saturated Capacity keeps a backlog: only backend 0 has one slot
	full := Capacity{Requests: 1}
	for i := range st.Backends {
		st.Backends[i].InFlight = 1
	}
	for i := range 64 {
		q.Arrive(0, mk(i))
	}
	fb, _ := q.(Feedback)
	b.ReportAllocs()
	b.ResetTimer()
	released := 0
	for i := range b.N {
		now := time.Duration(i) * time.Millisecond
		q.Arrive(now, mk(64+i))
		st.Backends[0].InFlight = 0
		for _, r := range q.Release(now, st, full) {
			released++
			if fb != nil {
				fb.Done(now, r.Req, Outcome{Backend: r.Backend, OutputTokens: r.Req.OutputTokens, TBT: time.Millisecond})
			}
		}
		st.Backends[0].InFlight = 1
	}
	b.ReportMetric(float64(released)/b.Elapsed().Seconds(), "releases/s")
}
