package engine

import (
	"fmt"
	"testing"
	"time"
)

// pressureArrivals returns n long requests arriving 2 ms apart, some
// sharing a 64-token system prompt.
func pressureArrivals(n int) []arrival {
	shared := prompt(64, 999)
	var arr []arrival
	for i := range n {
		p := prompt(200, i)
		if i%3 == 0 {
			p = append(append([]int(nil), shared...), p[64:]...)
		}
		arr = append(arr, arrival{time.Duration(i) * 2 * time.Millisecond,
			Request{ID: fmt.Sprintf("r%02d", i), Prompt: p, MaxTokens: 100, IgnoreEOS: true}})
	}
	return arr
}

func TestKVPressurePreemptsEvictsAndLosesNothing(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NumGPUBlocks = 64 // 1,024 tokens; one request needs up to 19 blocks
	cfg.MaxNumSeqs = 16
	e := mustNew(t, cfg)
	arr := pressureArrivals(40)
	steps := drive(t, e, arr, 100000)

	tokens := map[string]int{}
	finished := map[string]int{}
	preempted := 0
	for _, st := range steps {
		for _, ev := range st.Events {
			if ev.HasToken {
				tokens[ev.ID]++
				if ev.NumOutput != tokens[ev.ID] {
					t.Fatalf("%s: event says %d tokens, %d seen", ev.ID, ev.NumOutput, tokens[ev.ID])
				}
			}
			if ev.Finished {
				finished[ev.ID]++
			}
			if ev.Preempted {
				preempted++
			}
		}
	}
	for _, a := range arr {
		if tokens[a.req.ID] != 100 || finished[a.req.ID] != 1 {
			t.Errorf("%s: %d tokens, finished %d times; want 100 and once", a.req.ID, tokens[a.req.ID], finished[a.req.ID])
		}
	}
	st := e.Stats()
	if st.Preemptions == 0 || st.Evictions == 0 {
		t.Fatalf("preemptions %d, evictions %d: want both > 0 under KV pressure", st.Preemptions, st.Evictions)
	}
	if int64(preempted) != st.Preemptions {
		t.Fatalf("preempted events %d, counter %d", preempted, st.Preemptions)
	}
	if st.UsedBlocks != 0 || st.Running != 0 || st.Waiting != 0 || st.Finished[FinishLength] != 40 {
		t.Fatalf("end state: %+v", st)
	}
	if st.RecomputeQueries == 0 {
		t.Fatal("preempted requests were never re-admitted")
	}
	t.Logf("40 requests on 64 blocks: %d steps, %d preemptions, %d evictions, hits %d/%d tokens",
		len(steps), st.Preemptions, st.Evictions, st.PrefixHits, st.PrefixQueries)
}

func TestKVUsageNeverExceedsCapacity(t *testing.T) {
	cfg := DefaultConfig()
	cfg.NumGPUBlocks, cfg.MaxNumSeqs = 40, 8
	e := mustNew(t, cfg)
	arr := pressureArrivals(20)
	next := 0
	var now time.Duration
	for i := 0; i < 100000 && (next < len(arr) || !e.Idle()); i++ {
		for next < len(arr) && arr[next].at <= now {
			r := arr[next].req
			if err := e.Add(now, &r); err != nil {
				t.Fatal(err)
			}
			next++
		}
		st := e.Step(now)
		now = max(st.End(), now+time.Millisecond)
		s := e.Stats()
		if s.UsedBlocks+s.CachedBlocks > cfg.NumGPUBlocks || s.KVUsage > 1 {
			t.Fatalf("step %d: used %d + cached %d blocks of %d", i, s.UsedBlocks, s.CachedBlocks, cfg.NumGPUBlocks)
		}
	}
	if !e.Idle() {
		t.Fatal("not done")
	}
}
