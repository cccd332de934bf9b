package replay

import (
	"container/heap"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// gateSent is one Request a driven gate released, as sent.
type gateSent struct {
	ID string
	At time.Duration
}

// gateServer serves each Request in its service time (5 s unless the
// Request's OutputTokens says otherwise, in seconds); a Request whose ID
// is in fail fails. Answers are "ans-ID", 3 tokens.
type gateServer struct {
	fail map[string]bool
}

// inflightHeap orders in-flight Results by Done.
type inflightHeap []*results.Result

func (h inflightHeap) Len() int           { return len(h) }
func (h inflightHeap) Less(i, j int) bool { return h[i].Done < h[j].Done }
func (h inflightHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *inflightHeap) Push(x any)        { *h = append(*h, x.(*results.Result)) }
func (h *inflightHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// driveGate runs reqs through a gate against srv in virtual time and
// returns what was sent, the Requests as sent, and the gate.
func driveGate(t *testing.T, reqs []traces.Request, o Sessions, srv gateServer) ([]gateSent, map[string]traces.Request, *Gate) {
	t.Helper()
	g := NewGate(traces.NewSliceSource(reqs), o)
	var sent []gateSent
	got := map[string]traces.Request{}
	var fl inflightHeap
	now := time.Duration(0)
	for step := 0; step < 10000; step++ {
		next := g.Peek(now)
		if next == nil && len(fl) == 0 {
			if g.Pending() {
				t.Fatalf("gate holds requests with nothing in flight")
			}
			return sent, got, g
		}
		if next != nil && (len(fl) == 0 || next.Arrival <= fl[0].Done) {
			now = max(now, next.Arrival)
			r := *next
			g.Pop()
			sent = append(sent, gateSent{r.ID, now})
			got[r.ID] = r
			res := &results.Result{ID: r.ID, Done: now + time.Duration(max(r.OutputTokens, 5))*time.Second, CompletionTokens: 3}
			if srv.fail[r.ID] {
				res.ErrClass = results.ErrHTTP5xx
			}
			heap.Push(&fl, res)
			continue
		}
		res := heap.Pop(&fl).(*results.Result)
		now = res.Done
		a := &results.Answer{}
		a.AddChunk([]byte(`{"choices":[{"text":"ans-` + res.ID + `"}]}`))
		g.Done(res, a)
	}
	t.Fatal("gate did not finish in 10000 steps")
	return nil, nil, nil
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// turn is a Request of session s, turn k, at trace time at (seconds).
func turn(s string, k int, at float64) traces.Request {
	return traces.Request{ID: fmt.Sprintf("%s-%d", s, k), Session: s, Turn: k, Arrival: sec(at), OutputTokens: 5}
}

func thinking(r traces.Request, think float64) traces.Request {
	r.Think, r.ThinkKnown = sec(think), true
	return r
}

func after(r traces.Request, ids ...string) traces.Request {
	r.After = ids
	return r
}

func TestGateTiming(t *testing.T) {
	tests := []struct {
		name string
		reqs []traces.Request
		o    Sessions
		srv  gateServer
		want []gateSent
		// skipped, failed, ended: the stop record's counts.
		skipped, ended int
	}{
		{name: "closed: think after the answer",
			reqs: []traces.Request{turn("s", 0, 0), thinking(turn("s", 1, 10), 1), thinking(turn("s", 2, 20), 1)},
			want: []gateSent{{"s-0", 0}, {"s-1", sec(6)}, {"s-2", sec(12)}}},
		{name: "open: at trace time", o: Sessions{Mode: SessionsOpen},
			reqs: []traces.Request{turn("s", 0, 0), thinking(turn("s", 1, 10), 1), thinking(turn("s", 2, 20), 1)},
			want: []gateSent{{"s-0", 0}, {"s-1", sec(10)}, {"s-2", sec(20)}}},
		{name: "closed: think unknown is the trace gap",
			reqs: []traces.Request{turn("s", 0, 0), turn("s", 1, 10)},
			want: []gateSent{{"s-0", 0}, {"s-1", sec(15)}}},
		{name: "sessions interleave; a later start is not held back",
			reqs: []traces.Request{turn("a", 0, 0), thinking(turn("a", 1, 2), 0), turn("b", 0, 3)},
			want: []gateSent{{"a-0", 0}, {"b-0", sec(3)}, {"a-1", sec(5)}}},
		{name: "sub-agents run together while the parent waits",
			reqs: []traces.Request{turn("p", 0, 0),
				thinking(after(turn("p/a", 0, 1), "p-0"), 0), thinking(after(turn("p/b", 0, 1), "p-0"), 0),
				thinking(turn("p/a", 1, 2), 0),
				thinking(after(turn("p", 1, 3), "p-0", "p/a-1", "p/b-0"), 2)},
			want: []gateSent{{"p-0", 0}, {"p/a-0", sec(5)}, {"p/b-0", sec(5)}, {"p/a-1", sec(10)}, {"p-1", sec(17)}}},
		{name: "a failed turn ends its session", o: Sessions{OnFailure: FailEnd},
			srv:  gateServer{fail: map[string]bool{"s-1": true}},
			reqs: []traces.Request{turn("s", 0, 0), thinking(turn("s", 1, 1), 1), thinking(turn("s", 2, 2), 1), turn("t", 0, 30)},
			want: []gateSent{{"s-0", 0}, {"s-1", sec(6)}, {"t-0", sec(30)}}, skipped: 1, ended: 1},
		{name: "a failed turn lets its session go on",
			srv:  gateServer{fail: map[string]bool{"s-1": true}},
			reqs: []traces.Request{turn("s", 0, 0), thinking(turn("s", 1, 1), 1), thinking(turn("s", 2, 2), 1)},
			want: []gateSent{{"s-0", 0}, {"s-1", sec(6)}, {"s-2", sec(12)}}},
		{name: "users: two at a time, trace times ignored", o: Sessions{Users: 2},
			reqs: []traces.Request{turn("a", 0, 0), turn("b", 0, 50), turn("c", 0, 60), turn("d", 0, 70)},
			want: []gateSent{{"a-0", 0}, {"b-0", 0}, {"c-0", sec(5)}, {"d-0", sec(5)}}},
		{name: "users ramp", o: Sessions{Users: 2, Ramp: sec(2)},
			reqs: []traces.Request{turn("a", 0, 0), turn("b", 0, 0), turn("c", 0, 0)},
			want: []gateSent{{"a-0", 0}, {"b-0", sec(1)}, {"c-0", sec(5)}}},
		{name: "users: a session's turns keep the user", o: Sessions{Users: 1},
			reqs: []traces.Request{turn("a", 0, 0), turn("b", 0, 1), thinking(turn("a", 1, 2), 1)},
			want: []gateSent{{"a-0", 0}, {"a-1", sec(6)}, {"b-0", sec(11)}}},
		{name: "closed-loop dispatch stops at StopAt", o: Sessions{StopAt: sec(8)},
			reqs: []traces.Request{turn("s", 0, 0), thinking(turn("s", 1, 10), 1), thinking(turn("s", 2, 20), 1),
				turn("t", 0, 7), turn("u", 0, 9)},
			want: []gateSent{{"s-0", 0}, {"s-1", sec(6)}, {"t-0", sec(7)}}},
		{name: "sessionless requests at trace time",
			reqs: []traces.Request{{ID: "x", Arrival: sec(1)}, {ID: "y", Arrival: sec(2)}},
			want: []gateSent{{"x", sec(1)}, {"y", sec(2)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sent, _, g := driveGate(t, tc.reqs, tc.o, tc.srv)
			if diff := cmp.Diff(tc.want, sent); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
			if g.stats.Skipped != tc.skipped || g.stats.EndedByFailure != tc.ended {
				t.Errorf("skipped %d, ended by failure %d; want %d, %d", g.stats.Skipped, g.stats.EndedByFailure,
					tc.skipped, tc.ended)
			}
		})
	}
}

// TestGateNeverEarly checks on a generated multi-turn workload that no
// turn is sent before the turn it follows has finished, and that every
// Request is sent once.
func TestGateNeverEarly(t *testing.T) {
	src, err := traces.NewWorkload("multi-turn", traces.Params{{Name: "requests", Value: traces.ParamInt(300)}, {Name: "rate", Value: traces.ParamFloat(20)}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var reqs []traces.Request
	for {
		r, err := src.Next()
		if err != nil {
			break
		}
		reqs = append(reqs, r)
	}
	sent, _, _ := driveGate(t, reqs, Sessions{}, gateServer{})
	if len(sent) != len(reqs) {
		t.Fatalf("sent %d of %d requests", len(sent), len(reqs))
	}
	at := map[string]time.Duration{}
	for _, s := range sent {
		at[s.ID] = s.At
	}
	early := 0
	for _, r := range reqs {
		if r.Turn == 0 {
			continue
		}
		prev := fmt.Sprintf("%s-%d", r.Session, r.Turn-1)
		done := at[prev] + 5*time.Second
		if at[r.ID] < done+r.Think {
			early++
		}
	}
	if early > 0 {
		t.Errorf("%d turns went out before their predecessor's answer plus think time", early)
	}
}

func TestGateMidStart(t *testing.T) {
	var reqs []traces.Request
	for k := range 6 {
		reqs = append(reqs, thinking(turn("a", k, float64(k)), 1))
	}
	reqs = append(reqs, turn("b", 0, 10))
	for seed := range uint64(8) {
		sent, _, g := driveGate(t, reqs, Sessions{Users: 1, MidStart: true, Seed: seed}, gateServer{})
		k := g.stats.MidStartSkipped
		if len(sent)+k != len(reqs) {
			t.Fatalf("seed %d: sent %d + skipped %d != %d", seed, len(sent), k, len(reqs))
		}
		if sent[0].ID != fmt.Sprintf("a-%d", k) || sent[0].At != 0 {
			t.Errorf("seed %d: first sent %+v, want a-%d at 0", seed, sent[0], k)
		}
	}
}

func TestGateFeedsAnswersBack(t *testing.T) {
	m := func(role, c string) traces.Message { return traces.Message{Role: role, Content: c} }
	t0 := turn("s", 0, 0)
	t0.Messages = []traces.Message{m("system", "sys"), m("user", "q0")}
	t0.Prompt, t0.InputTokens, t0.OutputTokens = traces.JoinContents(t0.Messages), 2, 4
	t1 := thinking(turn("s", 1, 1), 0)
	t1.Messages = []traces.Message{m("system", "sys"), m("user", "q0"), m("assistant", "w w w w"), m("user", "q1")}
	t1.Prompt, t1.InputTokens, t1.OutputTokens = traces.JoinContents(t1.Messages), 7, 4
	t2 := thinking(turn("s", 2, 2), 0)
	t2.Messages = append(append([]traces.Message(nil), t1.Messages...), m("assistant", "v v v v"), m("user", "q2"))
	t2.Prompt, t2.InputTokens = traces.JoinContents(t2.Messages), 12
	// Token-id turns: 2 prompt ids, 4 answer ids in the trace.
	k0 := traces.Request{ID: "k-0", Session: "k", TokenIDs: []int{1, 2}, InputTokens: 2, OutputTokens: 4}
	k1 := thinking(traces.Request{ID: "k-1", Session: "k", Turn: 1, TokenIDs: []int{1, 2, 9, 9, 9, 9, 3},
		InputTokens: 7, OutputTokens: 4}, 0)

	_, got, _ := driveGate(t, []traces.Request{t0, t1, t2, k0, k1}, Sessions{}, gateServer{})
	want := []traces.Message{m("system", "sys"), m("user", "q0"), m("assistant", "ans-s-0"), m("user", "q1"),
		m("assistant", "ans-s-1"), m("user", "q2")}
	if diff := cmp.Diff(want, got["s-2"].Messages); diff != "" {
		t.Errorf("turn 2 messages (-want +got):\n%s", diff)
	}
	if g := got["s-2"]; g.Prompt != traces.JoinContents(want) || g.InputTokens != 12-1-1 {
		t.Errorf("turn 2 prompt %q, %d tokens; want the messages joined, 10 tokens", g.Prompt, g.InputTokens)
	}
	// The driver's answers carry text but no ids: the token-id prompt stays.
	if diff := cmp.Diff([]int{1, 2, 9, 9, 9, 9, 3}, got["k-1"].TokenIDs); diff != "" {
		t.Errorf("token-id turn without answer ids changed (-want +got):\n%s", diff)
	}
	_, got, _ = driveGate(t, []traces.Request{t0, t1, t2}, Sessions{NoFeedBack: true}, gateServer{})
	if diff := cmp.Diff(t2.Messages, got["s-2"].Messages); diff != "" {
		t.Errorf("--no-feedback changed the prompt (-want +got):\n%s", diff)
	}
}

func TestFeedIDs(t *testing.T) {
	last := &turnRecord{id: "k-0", tokenIDs: 2, output: 4, sentIDs: []int{1, 2}, ids: []int{7, 8, 7}, completion: 3}
	r := traces.Request{ID: "k-1", TokenIDs: []int{1, 2, 9, 9, 9, 9, 3}, InputTokens: 7}
	feedBack(&r, last, []string{"k-0"})
	if diff := cmp.Diff([]int{1, 2, 7, 8, 7, 3}, r.TokenIDs); diff != "" || r.InputTokens != 6 {
		t.Errorf("fed ids (-want +got):\n%s, %d tokens (want 6)", diff, r.InputTokens)
	}
}

func TestSessionsValidate(t *testing.T) {
	tests := []struct {
		o    Sessions
		want string
	}{
		{Sessions{Mode: "half"}, `Sessions.Mode: unknown "half" (known: closed, open)`},
		{Sessions{OnFailure: "retry"}, `Sessions.OnFailure: unknown "retry" (known: continue, end)`},
		{Sessions{Users: -1}, "Sessions.Users: -1 is negative"},
		{Sessions{Mode: SessionsOpen, Users: 2}, "Sessions.Users: 2 users need closed-loop sessions, not open"},
		{Sessions{MidStart: true}, "Sessions.MidStart: starting mid-conversation needs Users > 0"},
		{Sessions{Users: 3, Ramp: time.Second, MidStart: true}, ""},
	}
	for _, tc := range tests {
		err := tc.o.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.o, got, tc.want)
		}
	}
}
