package traces

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readAgentic reads path as an agentic trace with opt.
func readAgentic(t *testing.T, path string, opt AgenticOptions) []Request {
	t.Helper()
	fs, err := Open(path, ReadOptions{Agentic: opt})
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if fs.Format() != FormatAgentic {
		t.Fatalf("format %s, want agentic", fs.Format())
	}
	reqs, err := ReadAll(fs)
	if err != nil {
		t.Fatal(err)
	}
	return reqs
}

// shape is what TestAgenticSession checks of one Request.
type agenticShape struct {
	ID      string
	Arrival time.Duration
	After   []string
	Think   time.Duration
	Known   bool
	In, Out int
	Blocks  int
}

func shapesOf(reqs []Request) []agenticShape {
	out := make([]agenticShape, len(reqs))
	for i, r := range reqs {
		out[i] = agenticShape{r.ID, r.Arrival, r.After, r.Think, r.ThinkKnown, r.InputTokens, r.OutputTokens, len(r.BlockIDs)}
	}
	return out
}

func TestAgenticSession(t *testing.T) {
	s := time.Second
	ms := time.Millisecond
	tests := []struct {
		join string
		want []agenticShape
	}{
		// a1 ends at 11 s (5 + 6000 ms), before the parent's request at
		// 12 s, which joins it; a2 ends at 26 s, so the request at 30 s
		// joins it. a1's second request has no api_time: 4 tokens × 25 ms.
		{AgenticJoinRecorded, []agenticShape{
			{"s1#0", 0, nil, 0, false, 10, 8, 2},
			{"s1/a1#0", 5 * s, []string{"s1#0"}, 3 * s, true, 8, 4, 2},
			{"s1/a2#0", 6 * s, []string{"s1#0"}, 4 * s, true, 8, 2, 2},
			{"s1/a1#1", 8 * s, nil, 2 * s, true, 12, 4, 3},
			{"s1#1", 12 * s, []string{"s1#0", "s1/a1#1"}, 3900 * ms, true, 16, 4, 4},
			{"s1/a2#1", 14 * s, nil, 7 * s, true, 13, 2, 3},
			{"s1#2", 30 * s, []string{"s1#1", "s1/a2#1"}, 14 * s, true, 20, 4, 5},
		}},
		// The request at 12 s waits for both; a2's last answer ends at
		// 16 s, so it is sent then, and the next 4 s later than recorded.
		{AgenticJoinNext, []agenticShape{
			{"s1#0", 0, nil, 0, false, 10, 8, 2},
			{"s1/a1#0", 5 * s, []string{"s1#0"}, 3 * s, true, 8, 4, 2},
			{"s1/a2#0", 6 * s, []string{"s1#0"}, 4 * s, true, 8, 2, 2},
			{"s1/a1#1", 8 * s, nil, 2 * s, true, 12, 4, 3},
			{"s1/a2#1", 14 * s, nil, 7 * s, true, 13, 2, 3},
			{"s1#1", 16 * s, []string{"s1#0", "s1/a1#1", "s1/a2#1"}, 0, true, 16, 4, 4},
			{"s1#2", 34 * s, nil, 17 * s, true, 20, 4, 5},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.join, func(t *testing.T) {
			reqs := readAgentic(t, "testdata/agentic/session.json", AgenticOptions{Join: tc.join})
			if d := cmp.Diff(tc.want, shapesOf(reqs)); d != "" {
				t.Errorf("requests (-want +got):\n%s", d)
			}
		})
	}
}

func TestAgenticFields(t *testing.T) {
	reqs := readAgentic(t, "testdata/agentic/session.json", AgenticOptions{})
	byID := map[string]Request{}
	for _, r := range reqs {
		byID[r.ID] = r
	}
	p0, p1, a1, a2 := byID["s1#0"], byID["s1#1"], byID["s1/a1#0"], byID["s1/a2#0"]
	if p0.Session != "s1" || a1.Session != "s1/a1" || a1.User != "s1" || p1.Turn != 1 || byID["s1/a2#1"].Turn != 1 {
		t.Errorf("session, user or turn wrong: %+v / %+v", p0, a1)
	}
	if p0.Model != "" || p0.BlockSize != 4 {
		t.Errorf("model %q block size %d: the recorded model is not sent; block_size 4", p0.Model, p0.BlockSize)
	}
	want := &Recorded{Model: "big", OutputTypes: []string{"thinking", "tool_use"}}
	if d := cmp.Diff(want, p0.Recorded); d != "" {
		t.Errorf("recorded (-want +got):\n%s", d)
	}
	if !slices.Equal(p1.BlockIDs[:2], p0.BlockIDs) || !slices.Equal(a1.BlockIDs, a2.BlockIDs) {
		t.Error("equal hash ids of one file must stay equal blocks")
	}
	if slices.Contains(a1.BlockIDs, p0.BlockIDs[0]) || p0.BlockIDs[0] == 1 {
		t.Errorf("hash ids are not namespaced: %v %v", p0.BlockIDs, a1.BlockIDs)
	}
}

// TestAgenticDirectory reads a directory: files start 10 s apart in name
// order (README.txt is not a session), local ids stay within their file
// and global ids are shared.
func TestAgenticDirectory(t *testing.T) {
	reqs := readAgentic(t, "testdata/agentic/dir", AgenticOptions{})
	var ids []string
	var at []time.Duration
	blocks := map[string][]uint64{}
	for _, r := range reqs {
		ids, at = append(ids, r.ID), append(at, r.Arrival)
		blocks[r.ID] = r.BlockIDs
	}
	if !slices.Equal(ids, []string{"a#0", "a#1", "b#0", "c#0", "d#0"}) ||
		!slices.Equal(at, []time.Duration{0, 4 * time.Second, 10 * time.Second, 20 * time.Second, 32 * time.Second}) {
		t.Errorf("ids %v at %v", ids, at)
	}
	switch {
	case !slices.Equal(blocks["a#0"], blocks["a#1"][:2]):
		t.Error("a's turns do not share their prefix")
	case blocks["a#0"][0] == blocks["b#0"][0]:
		t.Error("two local sessions share a block by number alone")
	case !slices.Equal(blocks["c#0"], blocks["d#0"][:2]):
		t.Error("two global sessions do not share their equal ids")
	case blocks["c#0"][0] == blocks["a#0"][0]:
		t.Error("a global id equals a local one")
	}
	st, err := Stats(NewSliceSource(reqs))
	if err != nil {
		t.Fatal(err)
	}
	// Hits: a#1's 2 blocks in its session (8 tokens), d#0's 2 blocks from
	// c, another session (8 tokens), of 48 input tokens.
	if b := st.Blocks; b.HitTokens != 16 || b.SessionHitTokens != 8 || b.InputTokens != 48 {
		t.Errorf("block stats %+v", b)
	}
	staggered := readAgentic(t, "testdata/agentic/dir", AgenticOptions{Stagger: time.Second})
	if got := staggered[len(staggered)-1].Arrival; got != 5*time.Second {
		t.Errorf("d starts at %v with a 1 s stagger, want 5 s", got)
	}
}

func TestAgenticScaleAndCap(t *testing.T) {
	tests := []struct {
		name    string
		opt     AgenticOptions
		in, out int
		keep    []int // positions of the 5 recorded blocks of s1#2 kept
	}{
		{"none", AgenticOptions{}, 20, 4, []int{0, 1, 2, 3, 4}},
		// Positions i with floor((i+1)/2) > floor(i/2): 1 and 3.
		{"half", AgenticOptions{Scale: 0.5}, 10, 2, []int{1, 3}},
		// 6 tokens of 4-token blocks: the first two blocks, cut.
		{"cap", AgenticOptions{MaxInput: 6}, 6, 4, []int{0, 1}},
		{"half and cap", AgenticOptions{Scale: 0.5, MaxInput: 3}, 3, 2, []int{1}},
	}
	full := readAgentic(t, "testdata/agentic/session.json", AgenticOptions{})
	last := full[len(full)-1].BlockIDs
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reqs := readAgentic(t, "testdata/agentic/session.json", tc.opt)
			r := reqs[len(reqs)-1]
			var want []uint64
			for _, i := range tc.keep {
				want = append(want, last[i])
			}
			if r.InputTokens != tc.in || r.OutputTokens != tc.out || !slices.Equal(r.BlockIDs, want) {
				t.Errorf("in %d out %d blocks %v, want %d %d %v", r.InputTokens, r.OutputTokens, r.BlockIDs, tc.in, tc.out, want)
			}
			if d := cmp.Diff(shapesOf(full)[0].Think, shapesOf(reqs)[0].Think); d != "" || r.Arrival != full[len(full)-1].Arrival {
				t.Error("scaling moved times")
			}
		})
	}
}

// TestAgenticBadInput checks every malformed session is one error naming
// the file, the session, the entry and the field.
func TestAgenticBadInput(t *testing.T) {
	req := `{"t": %s, "in": 100, "out": 1, "hash_ids": [1]}`
	ok := strings.Replace(req, "%s", "0", 1)
	tests := []struct {
		name, data, want string
	}{
		{"sub-agent without requests", `{"id": "s", "requests": [` + ok + `, {"t": 1, "type": "subagent", "agent_id": "a1", "requests": []}]}`,
			"read trace bad.json session s entry requests[1] field requests: sub-agent a1 has no requests"},
		{"sub-agent with only a sub-agent", `{"id": "s", "requests": [` + ok + `, {"t": 1, "type": "subagent", "agent_id": "a1", "requests": [{"t": 0, "type": "subagent", "agent_id": "a2", "requests": [` + ok + `]}]}]}`,
			"session s entry requests[1] field requests: sub-agent a1 has no requests"},
		{"time goes back", `{"id": "s", "requests": [` + strings.Replace(req, "%s", "5", 1) + `, ` + strings.Replace(req, "%s", "3", 1) + `]}`,
			"read trace bad.json session s entry requests[1] field t: 3 s is before the previous entry's 5 s: times go backwards"},
		{"time goes back in a sub-agent", `{"id": "s", "requests": [` + ok + `, {"t": 1, "type": "subagent", "agent_id": "a1", "requests": [` +
			strings.Replace(req, "%s", "2", 1) + `, ` + strings.Replace(req, "%s", "1", 1) + `]}]}`,
			"session s/a1 entry requests[1].requests[1] field t: 1 s is before the previous entry's 2 s"},
		{"sub-agent before the parent's time", `{"id": "s", "requests": [` + strings.Replace(req, "%s", "5", 1) + `, {"t": 1, "type": "subagent", "agent_id": "a1", "requests": [` + ok + `]}]}`,
			"session s entry requests[1] field t: 1 s is before the previous entry's 5 s"},
		{"hash ids short", `{"id": "s", "requests": [{"t": 0, "in": 200, "out": 1, "hash_ids": [1]}]}`,
			"session s entry requests[0] field hash_ids: 1 ids for in = 200 tokens: want 3 or 4 (one per 64-token block"},
		{"hash ids long", `{"id": "s", "block_size": 16, "requests": [{"t": 0, "in": 16, "out": 1, "hash_ids": [1, 2]}]}`,
			"field hash_ids: 2 ids for in = 16 tokens: want 1 (one per 16-token block"},
		{"missing t", `{"id": "s", "requests": [{"in": 1, "out": 1}]}`, "session s entry requests[0] field t: missing"},
		{"negative t", `{"id": "s", "requests": [` + strings.Replace(req, "%s", "-1", 1) + `]}`, "entry requests[0] field t: -1 s"},
		{"missing in", `{"id": "s", "requests": [{"t": 0, "out": 1}]}`, "session s entry requests[0] field in: missing"},
		{"negative out", `{"id": "s", "requests": [{"t": 0, "in": 1, "out": -2}]}`, "entry requests[0] field out: negative (-2)"},
		{"huge in", `{"id": "s", "requests": [{"t": 0, "in": 99999999, "out": 1}]}`, "field in: 99999999 tokens, above the limit"},
		{"bad api_time", `{"id": "s", "requests": [{"t": 0, "in": 1, "out": 1, "api_time": -3}]}`, "entry requests[0] field api_time: -3 s"},
		{"bad type", `{"id": "s", "requests": [{"t": 0, "type": "x", "in": 1, "out": 1}]}`, `field type: "x": want s, n or subagent`},
		{"sub-agent without id", `{"id": "s", "requests": [{"t": 0, "type": "subagent", "requests": [` + ok + `]}]}`,
			"session s entry requests[0] field agent_id: missing"},
		{"sub-agent id twice", `{"id": "s", "requests": [{"t": 0, "type": "subagent", "agent_id": "a", "requests": [` + ok + `]}, {"t": 0, "type": "subagent", "agent_id": "a", "requests": [` + ok + `]}]}`,
			`session s entry requests[1] field agent_id: "a": a second sub-agent`},
		{"bad duration", `{"id": "s", "requests": [{"t": 0, "type": "subagent", "agent_id": "a", "duration_ms": -1, "requests": [` + ok + `]}]}`,
			"entry requests[0] field duration_ms: -1 ms: want 0 to"},
		{"no id", `{"requests": [` + ok + `]}`, "read trace bad.json session (no id) field id: missing"},
		{"no requests", `{"id": "s", "requests": []}`, "read trace bad.json session s field requests: the session has no requests"},
		{"bad scope", `{"id": "s", "hash_id_scope": "team", "requests": [` + ok + `]}`, `session s field hash_id_scope: "team": want local or global`},
		{"bad block size", `{"id": "s", "block_size": 0, "requests": [` + ok + `]}`, "session s field block_size: 0: want 1 to"},
		{"wrong type", `{"id": "s", "requests": [{"t": 0, "in": "many", "out": 1}]}`, "read trace bad.json line 1 field requests.in: want int"},
		{"broken JSON", "{\"id\": \"s\",\n \"requests\": [}", "read trace bad.json line 2: invalid JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := NewReader(strings.NewReader(tc.data), "bad.json", ReadOptions{Format: FormatAgentic})
			if err == nil {
				_, err = ReadAll(fs)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, tc.want)
			}
			fs, _ = NewReader(strings.NewReader(tc.data), "bad.json", ReadOptions{Format: FormatAgentic, SkipInvalid: true})
			if reqs, err := ReadAll(fs); err != nil || len(reqs) != 0 || fs.Skipped() != 1 {
				t.Errorf("with SkipInvalid: %d requests, %d skipped, %v; want the session skipped", len(reqs), fs.Skipped(), err)
			}
		})
	}
}

// TestAgenticDirectoryErrors names the file at fault in a directory, and
// skips it with SkipInvalid.
func TestAgenticDirectoryErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good := `{"id": "%s", "requests": [{"t": 0, "in": 64, "out": 1, "hash_ids": [1]}]}`
	write("1.json", strings.Replace(good, "%s", "x", 1))
	write("2.json", `{"id": "y", "requests": [{"t": 0, "in": 64, "out": 1, "hash_ids": []}]}`)
	write("3.json", strings.Replace(good, "%s", "x", 1))
	write("4.json", strings.Replace(good, "%s", "z", 1))
	_, err := Open(dir, ReadOptions{})
	if want := filepath.Join(dir, "2.json") + " session y entry requests[0] field hash_ids"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	fs, err := Open(dir, ReadOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := ReadAll(fs)
	if err != nil || len(reqs) != 2 || fs.Skipped() != 2 || reqs[1].Session != "z" || reqs[1].Arrival != 30*time.Second {
		t.Errorf("%d requests %+v, %d skipped, %v: want x and z (at 30 s), 2 skipped", len(reqs), reqs, fs.Skipped(), err)
	}
	write("2.json", strings.Replace(good, "%s", "y", 1))
	if _, err = Open(dir, ReadOptions{}); err == nil || !strings.Contains(err.Error(), "3.json session x field id: the session of") {
		t.Errorf("error %v, want the second session x named", err)
	}
}

func TestAgenticOptionErrors(t *testing.T) {
	tests := []struct {
		opt  ReadOptions
		want string
	}{
		{ReadOptions{Agentic: AgenticOptions{Scale: 2}}, "AgenticOptions.Scale 2: want a factor in (0, 1]"},
		{ReadOptions{Agentic: AgenticOptions{MaxInput: -1}}, "AgenticOptions.MaxInput -1"},
		{ReadOptions{Agentic: AgenticOptions{TokenTime: -time.Second}}, "AgenticOptions.TokenTime -1s"},
		{ReadOptions{Agentic: AgenticOptions{Stagger: -time.Second}}, "AgenticOptions.Stagger -1s"},
		{ReadOptions{Agentic: AgenticOptions{Join: "later"}}, `AgenticOptions.Join "later": want recorded or next`},
		{ReadOptions{TimeUnit: "ms"}, "ReadOptions.TimeUnit ms: the agentic format's times have a fixed unit"},
		{ReadOptions{Windows: WindowsSequential}, "ReadOptions.Windows sequential: the agentic format"},
	}
	for _, tc := range tests {
		for _, path := range []string{"testdata/agentic/dir", "testdata/agentic/session.json"} {
			if _, err := Open(path, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %+v: error %v, want %q", path, tc.opt, err, tc.want)
			}
		}
	}
	if _, err := Open("testdata/bailian.jsonl", ReadOptions{Agentic: AgenticOptions{MaxInput: 5}}); err == nil ||
		!strings.Contains(err.Error(), "AgenticOptions.MaxInput applies to the agentic format, not to a bailian trace") {
		t.Errorf("agentic option on a bailian trace: %v", err)
	}
}
