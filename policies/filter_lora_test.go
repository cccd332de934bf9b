package policies

import (
	"testing"

	"github.com/tracebench/tracebench/traces"
)

// TestLoRAAffinityFilter works GIE's rule by hand on three Backends with
// one adapter slot each, the inner Router being least-request (fewest
// in flight, ties to the seeded RNG; here in-flight counts make it
// deterministic).
func TestLoRAAffinityFilter(t *testing.T) {
	f, err := NewFilter("lora-affinity", nil, mustRouter(t, "least-request", nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	req := func(id, lora string) *traces.Request {
		return &traces.Request{ID: id, LoRA: lora, Prompt: id, InputTokens: 4}
	}
	pick := func(r *traces.Request, inFlight ...int) int {
		t.Helper()
		return mustPick(t, f, r, State{Backends: fleet(inFlight...)}).Backend
	}
	a1 := req("a1", "a")
	// Nothing active: every Backend has a free slot; least-request picks b1 (0 in flight).
	if got := pick(a1, 2, 0, 1); got != 1 {
		t.Fatalf("a1 went to %d, want 1", got)
	}
	// a is active on b1: a2 goes there although b1 is now the busiest.
	if got := pick(req("a2", "a"), 0, 5, 0); got != 1 {
		t.Fatalf("a2 went to %d, want 1 (adapter active)", got)
	}
	// b: not active anywhere; b1's only slot is taken by a, so b0 and b2
	// have a free slot; least-request picks b2.
	if got := pick(req("b1", "b"), 3, 0, 1); got != 2 {
		t.Fatalf("b1 went to %d, want 2 (free slot, fewest in flight)", got)
	}
	// c: b1 and b2 are full (a, b), b0 has a free slot: b0 though busiest.
	if got := pick(req("c1", "c"), 9, 0, 0); got != 0 {
		t.Fatalf("c1 went to %d, want 0 (only free slot)", got)
	}
	// d: no Backend has d active or a free slot: all three, least-request.
	if got := pick(req("d1", "d"), 4, 2, 3); got != 1 {
		t.Fatalf("d1 went to %d, want 1 (no filter applies)", got)
	}
	// A request without an adapter is not filtered.
	if got := pick(req("base", ""), 1, 1, 0); got != 2 {
		t.Fatalf("base went to %d, want 2", got)
	}
	// a1 finishing leaves a2 active on b1; c is active on b0: c2 goes there.
	fb := f.(Feedback)
	fb.Done(0, a1, Outcome{})
	if got := pick(req("c2", "c"), 0, 0, 0); got != 0 {
		t.Fatalf("c2 went to %d, want 0 (c active there)", got)
	}
	fb.Done(0, &traces.Request{ID: "x"}, Outcome{}) // unknown: ignored
	if _, ok := As[TokenFeedback](f); ok {
		t.Error("filter over least-request asks for token feedback")
	}
	// The low-queue filter runs first (a fresh filter, threshold 4): c is
	// active on b0, but b0 has 4 in flight, so c3 goes to a Backend with a
	// free slot among b1 and b2: the least loaded, b2. c is then active on
	// b0 and b2, and c4 takes the less loaded of those two, b0.
	g, _ := NewFilter("lora-affinity", Params{"queue_threshold": traces.ParamInt(4)}, mustRouter(t, "least-request", nil, 1))
	c := req("c", "c")
	mustPick(t, g, c, State{Backends: fleet(0, 5, 5)}) // c active on b0
	if got := mustPick(t, g, req("c3", "c"), State{Backends: fleet(4, 2, 1)}).Backend; got != 2 {
		t.Fatalf("c3 went to %d past the queue threshold, want 2", got)
	}
	if got := mustPick(t, g, req("c4", "c"), State{Backends: fleet(1, 0, 3)}).Backend; got != 0 {
		t.Fatalf("c4 went to %d, want 0 (c active on b0 and b2, b0 less loaded)", got)
	}
	if _, err := NewFilter("lora-affinity", Params{"max_loras": traces.ParamInt(0)}, mustRouter(t, "random", nil, 1)); err == nil {
		t.Error("max_loras 0 accepted")
	}
}

// TestLoRAAffinityScraped: with the servers' vllm:lora_requests_info
// scraped, the filter reads their running and waiting adapters and
// max_lora, not the client's own counts, and says so in its stop extras.
func TestLoRAAffinityScraped(t *testing.T) {
	scraped := func(inFlight []int, maxLoRA int, running, waiting [][]string) []Backend {
		bs := fleet(inFlight...)
		for i := range bs {
			bs[i].LoRAScraped, bs[i].MaxLoRA = true, maxLoRA
			bs[i].LoRARunning, bs[i].LoRAWaiting = running[i], waiting[i]
		}
		return bs
	}
	req := func(id, lora string) *traces.Request {
		return &traces.Request{ID: id, LoRA: lora, Prompt: id, InputTokens: 4}
	}
	none := []string(nil)
	for _, c := range []struct {
		name     string
		inFlight []int
		maxLoRA  int
		running  [][]string
		waiting  [][]string
		want     int
	}{
		// The client sent nothing, but b2 runs adapter a (another
		// gateway's traffic): a goes to b2 although it is the busiest.
		{"running elsewhere", []int{0, 0, 9}, 1, [][]string{none, none, {"a"}}, [][]string{none, none, none}, 2},
		// a only waits on b0: waiting counts as active, as in GIE.
		{"waiting", []int{5, 0, 0}, 2, [][]string{{"x"}, none, none}, [][]string{{"a"}, none, none}, 0},
		// Nobody has a; b0 and b1 are full (running + waiting = max_lora 2), b2 has a slot.
		{"slot from max_lora", []int{0, 0, 7}, 2, [][]string{{"x", "y"}, {"x"}, {"z"}}, [][]string{none, {"y"}, none}, 2},
		// No slot anywhere: all three, least-request picks b1.
		{"no slot", []int{3, 1, 2}, 1, [][]string{{"x"}, {"y"}, {"z"}}, [][]string{none, none, none}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := NewFilter("lora-affinity", nil, mustRouter(t, "least-request", nil, 1))
			if err != nil {
				t.Fatal(err)
			}
			st := State{Backends: scraped(c.inFlight, c.maxLoRA, c.running, c.waiting)}
			if got := mustPick(t, f, req("r", "a"), st).Backend; got != c.want {
				t.Errorf("went to %d, want %d", got, c.want)
			}
			ex := f.(StopReporter).StopExtras()
			if ex[ExtraLoRAServerViews] != 3 || ex[ExtraLoRAClientViews] != 0 {
				t.Errorf("extras %v: want 3 server views, 0 client views", ex)
			}
		})
	}
	// Unscraped Backends fall back to the client's counts, counted as such.
	f, _ := NewFilter("lora-affinity", nil, mustRouter(t, "least-request", nil, 1))
	mustPick(t, f, req("r", "a"), State{Backends: fleet(0, 0)})
	if ex := f.(StopReporter).StopExtras(); ex[ExtraLoRAServerViews] != 0 || ex[ExtraLoRAClientViews] != 2 {
		t.Errorf("extras %v: want 0 server views, 2 client views", ex)
	}
}
