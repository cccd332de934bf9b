package traces

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ragPulseLine is a RAGPulse record at second ts (segment ids of
// testdata/ragpulse).
func ragPulseLine(ts string) string {
	return `{"timestamp": "` + ts + `", "input_length": 12, "output_length": 3, "hash_ids": {"sys_prompt": [8302, 8303], ` +
		`"passages_ids": [], "history": [], "web_search": [], "user_input": []}, "session_id": "s"}` + "\n"
}

// twoWindows is a RAGPulse trace of two windows, timed in seconds from
// each window's start, as the published 0_trace.jsonl is (time restarts
// at 0 on its line 3801).
var twoWindows = ragPulseLine("10") + ragPulseLine("20") + ragPulseLine("600") + ragPulseLine("5") + ragPulseLine("15") + ragPulseLine("15")

// TestWindows: a trace whose time restarts is refused with an error
// naming the file, the line, the field and the flag that reads it, and
// read window after window with ReadOptions.Windows sequential, each window offset
// by the previous one's last arrival (RAGPulse timestamps are seconds).
func TestWindows(t *testing.T) {
	tests := []struct {
		name    string
		format  string
		data    string
		windows string
		want    []time.Duration
		wantErr []string
	}{
		{"one window refuses the restart", FormatRAGPulse, twoWindows, "", nil,
			[]string{"w.jsonl line 4 field timestamp", "arrival 5s before the previous record's 10m0s", "ReadOptions.Windows sequential"}},
		{"explicit one", FormatRAGPulse, twoWindows, WindowsOne, nil, []string{"line 4", "ReadOptions.Windows sequential"}},
		{"sequential", FormatRAGPulse, twoWindows, WindowsSequential,
			[]time.Duration{0, 10 * time.Second, 590 * time.Second, 595 * time.Second, 605 * time.Second, 605 * time.Second}, nil},
		{"sequential, sorted trace unchanged", FormatRAGPulse, ragPulseLine("1") + ragPulseLine("2"), WindowsSequential,
			[]time.Duration{0, time.Second}, nil},
		{"three windows", FormatVTC, vtcLine(4) + vtcLine(1) + vtcLine(0) + vtcLine(2), WindowsSequential,
			[]time.Duration{0, time.Second, time.Second, 3 * time.Second}, nil},
		{"mooncake orders itself", FormatMooncake, `{"timestamp": 1, "input_length": 5, "output_length": 1, "hash_ids": [1]}` + "\n",
			WindowsSequential, nil, []string{"w.jsonl", "ReadOptions.Windows sequential: the mooncake format"}},
		{"unknown mode", FormatRAGPulse, twoWindows, "parallel", nil, []string{"w.jsonl", `ReadOptions.Windows "parallel": want one or sequential`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readWindows(tt.format, tt.data, tt.windows)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("read %v, want an error", got)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("arrivals %v, want %v", got, tt.want)
			}
		})
	}
}

// vtcLine is a VTC record at second ts.
func vtcLine(ts int) string {
	return `{"req_id": 1, "timestamp_s": ` + strconv.Itoa(ts) + `, "client": "a", "input_length": 4, "output_length": 2}` + "\n"
}

// readWindows reads data in format with the windows mode and returns the
// arrivals.
func readWindows(format, data, windows string) ([]time.Duration, error) {
	fs, err := NewReader(strings.NewReader(data), "w.jsonl", ReadOptions{Format: format, Windows: windows,
		SegmentDir: "testdata/ragpulse"})
	if err != nil {
		return nil, err
	}
	rs, err := ReadAll(fs)
	var at []time.Duration
	for _, r := range rs {
		at = append(at, r.Arrival)
	}
	return at, err
}
