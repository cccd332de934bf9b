package traces

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestSharedAgenticCoding reads ../shared/traces/agentic-coding (skipped
// only when the directory is absent) and checks the figures of its
// README: 1,827 requests with sub-agents flattened, 7 sub-agents in 2
// files, input mean 92,395 / median 78,165 / max 706,227 tokens, output
// mean 472 / median 231.
func TestSharedAgenticCoding(t *testing.T) {
	dir := sharedTrace(t, "agentic-coding")
	if files := agenticFiles(dir); len(files) != 60 {
		t.Fatalf("%d session files, want 60", len(files))
	}
	reqs := readAgentic(t, dir, AgenticOptions{}) // fails on any file's error
	st, err := Stats(NewSliceSource(reqs))
	if err != nil {
		t.Fatal(err)
	}
	if st.Requests != 1827 || st.Users != 60 || st.Sessions != 67 || st.SubSessions != 7 {
		t.Errorf("requests %d users %d sessions %d sub-sessions %d, want 1827, 60, 67, 7", st.Requests, st.Users, st.Sessions, st.SubSessions)
	}
	checkRounded(t, "mean input", st.Input.Mean, 92395, 0)
	checkRounded(t, "mean output", st.Output.Mean, 472, 0)
	if st.Input.P50 != 78165 || st.Input.Max != 706227 || st.Output.P50 != 231 {
		t.Errorf("input p50 %d max %d, output p50 %d", st.Input.P50, st.Input.Max, st.Output.P50)
	}
	if st.Think == nil || st.Think.Count != st.Requests-st.Sessions+st.SubSessions {
		t.Errorf("think %+v: want one per request with a predecessor", st.Think)
	}
	checkAfterOrder(t, reqs)
	// A session with sub-agents, written as native and read back, keeps
	// its links.
	one := readAgentic(t, filepath.Join(dir, "trace_0277.json"), AgenticOptions{})
	var b bytes.Buffer
	if _, err := WriteNative(&b, NewSliceSource(one)); err != nil {
		t.Fatal(err)
	}
	fs, err := NewReader(&b, "agentic.jsonl", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadAll(fs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(one, back, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("native read back (-agentic +native):\n%s", d)
	}
	// A quarter of the lengths keeps the infinite-cache hit rate within a
	// point, and between-session reuse with it.
	small := readAgentic(t, dir, AgenticOptions{Scale: 0.25, MaxInput: 1 << 17})
	sst, _ := Stats(NewSliceSource(small))
	if d := sst.Blocks.HitRate - st.Blocks.HitRate; d > 0.01 || d < -0.01 || sst.Input.Max > 1<<17 {
		t.Errorf("scaled hit rate %.4f, recorded %.4f; max input %d", sst.Blocks.HitRate, st.Blocks.HitRate, sst.Input.Max)
	}
}

// checkAfterOrder checks every After names a Request yielded earlier.
func checkAfterOrder(t *testing.T, reqs []Request) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range reqs {
		for _, id := range r.After {
			if !seen[id] {
				t.Fatalf("%s waits for %s, not yet yielded", r.ID, id)
			}
		}
		seen[r.ID] = true
	}
}
