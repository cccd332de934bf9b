package traces

import (
	"strings"
	"testing"
	"time"
)

// TestAgenticWorkload checks the structure of the agentic generator: the
// closed-loop links (After, Think) agree with the arrivals, sub-agents
// wait for the request that spawned them and their parent waits for all
// of them, and the tool definitions are one prefix for every session.
func TestAgenticWorkload(t *testing.T) {
	src, err := newTextWorkload("agentic", map[string]string{"requests": "400", "subagent_prob": "0.5", "tools_len": "64",
		"subagent_tools_len": "32"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := ReadAll(src)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Request{}
	last := map[string]string{} // session → its latest Request
	var tools, subTools string
	spawned, joins := 0, 0
	for _, r := range reqs {
		preds := r.After
		if len(preds) == 0 && last[r.Session] != "" {
			preds = []string{last[r.Session]}
		}
		end := time.Duration(0)
		for _, id := range preds {
			p, ok := byID[id]
			if !ok {
				t.Fatalf("%s waits for %s, not yielded before it", r.ID, id)
			}
			end = max(end, p.Arrival+time.Duration(p.OutputTokens)*25*time.Millisecond)
		}
		switch {
		case len(preds) == 0 && (r.ThinkKnown || r.Turn != 0):
			t.Fatalf("%s: a session's first request with a think time or turn %d", r.ID, r.Turn)
		case len(preds) > 0 && (!r.ThinkKnown || absDur(r.Arrival-(end+r.Think)) > time.Microsecond):
			t.Fatalf("%s at %v: not a think %v after its predecessors' end %v", r.ID, r.Arrival, r.Think, end)
		}
		sub := strings.Contains(r.Session, "/")
		system := r.Messages[0].Content
		switch {
		case sub && r.Turn == 0:
			spawned++
			parent := byID[r.After[0]]
			if len(r.After) != 1 || parent.Session != strings.Split(r.Session, "/")[0] {
				t.Fatalf("sub-agent %s waits for %v, want its parent's request", r.ID, r.After)
			}
		case !sub && len(r.After) > 0:
			joins++
			if r.After[0] != last[r.Session] || len(r.After) < 2 {
				t.Fatalf("%s waits for %v, want its previous request then its sub-agents", r.ID, r.After)
			}
			for _, id := range r.After[1:] {
				if s := byID[id].Session; !strings.HasPrefix(s, r.Session+"/") || last[s] != id {
					t.Fatalf("%s waits for %s, not the last request of one of its sub-agents", r.ID, id)
				}
			}
		}
		head, _, _ := strings.Cut(system, "\n") // a parent's tool definitions, then its own system prompt
		if sub && subTools == "" {
			subTools = system
		} else if !sub && tools == "" {
			tools = head
		}
		if sub && system != subTools || !sub && head != tools || len(strings.Fields(tools)) != 64 || len(strings.Fields(subTools)) > 32 {
			t.Fatalf("%s: the tool definitions are not the shared prefix", r.ID)
		}
		byID[r.ID], last[r.Session] = r, r.ID
	}
	if spawned < 10 || joins < 5 {
		t.Errorf("%d sub-agents, %d joins in 400 requests at subagent_prob 0.5", spawned, joins)
	}
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }

func TestAgenticWorkloadParams(t *testing.T) {
	src, err := newTextWorkload("agentic", map[string]string{"requests": "100", "subagent_prob": "0", "tool_time": "3s",
		"tool_time_sigma": "0"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	reqs, _ := ReadAll(src)
	st, _ := Stats(NewSliceSource(reqs))
	if st.SubSessions != 0 || st.Joins != 0 || st.Think.P50 != 3 || st.Think.Max != 3 || st.Think.Mean != 3 {
		t.Errorf("sub-sessions %d joins %d think %+v: want none, none and always 3 s", st.SubSessions, st.Joins, st.Think)
	}
	for _, tc := range []struct{ params, want string }{
		{"subagent_turns_min=9", "subagent_turns_min=9 is above subagent_turns_max=8"},
		{"subagent_prob=2", `parameter subagent_prob="2": want a number in [0, 1]`},
		{"tool_time=-1s", `parameter tool_time="-1s"`},
		{"subagents_max=0", `parameter subagents_max="0"`},
	} {
		k, v, _ := strings.Cut(tc.params, "=")
		if _, err := newTextWorkload("agentic", map[string]string{k: v}, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.params, err, tc.want)
		}
	}
}
