package traces

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestNativeAfter checks the native reader refuses a Request that waits
// on itself, on a later Request or on an unknown one: sessions that wait
// in a cycle would never be sent.
func TestNativeAfter(t *testing.T) {
	a := `{"id":"a","session":"s","arrival_ns":1,"output_tokens":1}`
	tests := []struct {
		name, text, want string
		good             int
	}{
		{"itself", a + "\n" + `{"id":"b","arrival_ns":2,"output_tokens":1,"after":["a","b"]}`,
			`line 2 field after[1]: "b" is the request itself`, 1},
		{"a later request", a + "\n" + `{"id":"b","arrival_ns":2,"output_tokens":1,"after":["c"]}` + "\n" + `{"id":"c","arrival_ns":3,"output_tokens":1,"after":["b"]}`,
			`line 2 field after[0]: "c" names no earlier request`, 1},
		{"a cycle through line ids", `{"arrival_ns":1,"output_tokens":1,"after":["2"]}` + "\n" + `{"arrival_ns":2,"output_tokens":1,"after":["1"]}`,
			`line 1 field after[0]: "2" names no earlier request`, 0},
		{"unknown", a + "\n" + `{"id":"b","arrival_ns":2,"output_tokens":1,"after":["zz"]}`, `line 2 field after[0]: "zz" names no earlier request`, 1},
		{"empty id", a + "\n" + `{"id":"b","arrival_ns":2,"output_tokens":1,"after":[""]}`, "line 2 field after[0]: empty id", 1},
		{"negative think", `{"arrival_ns":1,"output_tokens":1,"think_ns":-5}`, "line 1 field think_ns: negative (-5)", 0},
		{"negative slot", a + "\n" + `{"arrival_ns":2,"output_tokens":1,"slot":-1}`, "line 2 field slot: -1: want a llama.cpp slot id from 0 to 65536", 1},
		{"slot not a number", `{"arrival_ns":2,"output_tokens":1,"slot":"x"}`, "line 1 field slot", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readString(t, tc.text, ReadOptions{})
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "read trace t.trace "+tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			got, fs, err := readString(t, tc.text, ReadOptions{SkipInvalid: true})
			if err != nil || len(got) != tc.good || fs.Skipped() != strings.Count(tc.text, "\n")+1-tc.good {
				t.Errorf("skip: %d requests (want %d), %d skipped, %v", len(got), tc.good, fs.Skipped(), err)
			}
		})
	}
}

func TestNativeRoundTripSessions(t *testing.T) {
	in := []Request{
		{ID: "p#0", Session: "p", InputTokens: 3, OutputTokens: 2, Recorded: &Recorded{Model: "orig", OutputTypes: []string{"thinking"}}},
		{ID: "p/a#0", Session: "p/a", Arrival: time.Second, After: []string{"p#0"}, Think: time.Second, ThinkKnown: true, InputTokens: 1, OutputTokens: 1},
		{ID: "p#1", Session: "p", Turn: 1, Arrival: 2 * time.Second, After: []string{"p#0", "p/a#0"}, ThinkKnown: true, InputTokens: 5, OutputTokens: 1},
		{ID: "pinned", Arrival: 3 * time.Second, InputTokens: 2, OutputTokens: 1, Slot: new(int)},
	}
	var b strings.Builder
	if _, err := WriteNative(&b, NewSliceSource(in)); err != nil {
		t.Fatal(err)
	}
	got, _, err := readString(t, b.String(), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}
