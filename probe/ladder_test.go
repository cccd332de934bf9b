package probe

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestLadderLengths(t *testing.T) {
	got := ladderLengths(4, 480, 24)
	if len(got) != 24 {
		t.Fatalf("%d lengths, want 24", len(got))
	}
	short := max(ladderBlock, 480/48)
	evicted := map[int]bool{}
	for k, n := range got {
		long := k%8 < 4
		if !long && n != short {
			t.Errorf("request %d (a short block): %d tokens, want %d", k, n, short)
		}
		if long && (n <= short || n > 480) {
			t.Errorf("request %d (a long block): %d tokens, want in (%d, 480]", k, n, short)
		}
		// At concurrency 1 on 4 slots request k evicts request k−4: every
		// short request must evict a long one, and the evicted lengths
		// must climb more than one rung.
		if !long && k >= 4 {
			evicted[got[k-4]] = true
			if got[k-4] == short {
				t.Errorf("short request %d evicts a short one", k)
			}
		}
	}
	if len(evicted) < 3 {
		t.Errorf("short requests evict %d distinct lengths, want at least 3: %v", len(evicted), got)
	}
}

func TestLadderPhaseTrace(t *testing.T) {
	dir := t.TempDir()
	ph, err := LadderPhase(dir, 2, 96, 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	if ph.Name != "ladder" || ph.Concurrency != 1 || !ph.FirstTarget || ph.BlockSize != ladderBlock ||
		ph.Trace != filepath.Join(dir, "workloads", "ladder.jsonl") {
		t.Fatalf("phase %+v", ph)
	}
	f, err := os.Open(ph.Trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen, lines := map[uint64]bool{}, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var rec ladderRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", lines+1, err)
		}
		lines++
		if want := (rec.InputLength + ladderBlock - 1) / ladderBlock; len(rec.HashIDs) != want {
			t.Errorf("line %d: %d hash ids for %d tokens, want %d", lines, len(rec.HashIDs), rec.InputLength, want)
		}
		for _, h := range rec.HashIDs {
			if seen[h] {
				t.Errorf("line %d: hash id %d repeated: prompts would share a prefix", lines, h)
			}
			seen[h] = true
		}
	}
	if lines != 10 {
		t.Fatalf("%d lines, want 10", lines)
	}
}

func TestProbeSpecOfLadder(t *testing.T) {
	ps := Spec{Targets: []string{"http://127.0.0.1:1", "http://127.0.0.1:2"}, Dir: t.TempDir()}
	probeDefaults(&ps)
	ph := Phase{Name: "ladder", Concurrency: 1, Trace: "x.jsonl", BlockSize: 16, FirstTarget: true}
	rs := probeSpec(ps, ph, 1, false)
	if len(rs.Backends) != 1 || rs.Policy.MaxInflight != 1 || rs.Workload.Trace != "x.jsonl" ||
		rs.Workload.Format != "mooncake" || rs.Workload.BlockSize != 16 || rs.Workload.Workload != "" {
		t.Fatalf("ladder spec: backends %v, max in flight %d, workload %+v", rs.Backends, rs.Policy.MaxInflight, rs.Workload)
	}
}

func TestRestoreRecords(t *testing.T) {
	recs := restoreRecords(4, 500, 15, 3)
	if len(recs) != 15 {
		t.Fatalf("%d records, want 15", len(recs))
	}
	first := map[uint64]int{}
	for i, r := range recs {
		if r.InputLength < 2*ladderBlock || r.InputLength > 500 {
			t.Errorf("record %d: %d tokens, want in [%d, 500]", i, r.InputLength, 2*ladderBlock)
		}
		h := r.HashIDs[0]
		if j, ok := first[h]; ok {
			// A prompt comes back after the four others took every slot.
			if i-j != 5 {
				t.Errorf("record %d repeats record %d's prompt %d requests later, want 5", i, j, i-j)
			}
		}
		first[h] = i
	}
	if len(first) != 5 {
		t.Errorf("%d distinct prompts, want slots+1 = 5", len(first))
	}
	if recs[0].HashIDs[0] == recs[5].HashIDs[0] && recs[0].InputLength == recs[1].InputLength {
		t.Errorf("restored prompts all of one length: want climbing lengths")
	}
}

func TestBesideRecords(t *testing.T) {
	recs := besideRecords(4, 480, 14, 2)
	want := []int{16, 16, 16, 480, 480, 480, 480, 16, 16, 16, 480, 480, 480, 480}
	for i, r := range recs {
		if r.InputLength != want[i] {
			t.Fatalf("record %d: %d tokens, want %d (blocks of 3 decoders and 4 injections)", i, r.InputLength, want[i])
		}
		if (r.InputLength == 16) != (r.OutputLength == besideDecode) {
			t.Errorf("record %d: %d tokens out, want %d for a decoder and %d for an injection", i, r.OutputLength, besideDecode, ladderOutput)
		}
	}
	ph := SaturatedPhase(4, 480)
	if ph.Concurrency != 12 || ph.FirstTarget {
		t.Errorf("saturated phase %+v: want 12 in flight per server on every target", ph)
	}
}

func TestContextRecords(t *testing.T) {
	recs := contextRecords(2, 400, 10, 5)
	want := []int{100, 100, 200, 200, 300, 300, 400, 400, 100, 100}
	ids := map[uint64]bool{}
	for i, r := range recs {
		if r.InputLength != want[i] || r.OutputLength != contextOutput {
			t.Errorf("record %d: %d tokens in, %d out; want %d in, %d out", i, r.InputLength, r.OutputLength, want[i], contextOutput)
		}
		if ids[r.HashIDs[0]] {
			t.Errorf("record %d shares a prefix with an earlier one", i)
		}
		ids[r.HashIDs[0]] = true
	}
}
