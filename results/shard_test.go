package results

import (
	"fmt"
	"testing"

	"github.com/tracebench/tracebench/traces"
)

func TestShardPartition(t *testing.T) {
	var all []traces.Request
	for i := 0; i < 400; i++ {
		all = append(all, traces.Request{ID: fmt.Sprint(i), Session: fmt.Sprint("s", i%37)})
	}
	seen := map[string]int{}
	total := 0
	for i := 0; i < 4; i++ {
		got, err := traces.ReadAll(ShardSource(traces.NewSliceSource(all), i, 4))
		if err != nil {
			t.Fatal(err)
		}
		total += len(got)
		for _, r := range got {
			if s, ok := seen[r.Session]; ok && s != i {
				t.Fatalf("session %s in shards %d and %d", r.Session, s, i)
			}
			seen[r.Session] = i
		}
	}
	if total != len(all) {
		t.Fatalf("shards hold %d requests, want %d", total, len(all))
	}
}
