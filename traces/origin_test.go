package traces

import (
	"strings"
	"testing"
	"time"
)

// TestTimeOrigin checks every reader rebases to its first record: a file
// whose clock starts late replays from 0, Origin reports the offset, and
// --start / --duration count from the first record.
func TestTimeOrigin(t *testing.T) {
	tests := []struct {
		name, text string
		origin     time.Duration
		originText string
		gap        time.Duration // second record's rebased arrival
	}{
		{"mooncake", `{"timestamp": 1178625, "input_length": 3, "output_length": 1}` + "\n" +
			`{"timestamp": 1180625, "input_length": 3, "output_length": 1}` + "\n",
			1178625 * time.Millisecond, "starts at 1178.625 s", 2 * time.Second},
		{"vtc", `{"timestamp_s": 600.5, "client": "a", "input_length": 1, "output_length": 1}` + "\n" +
			`{"timestamp_s": 601, "client": "b", "input_length": 1, "output_length": 1}` + "\n",
			600500 * time.Millisecond, "starts at 600.5 s", 500 * time.Millisecond},
		{"burstgpt", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n" +
			"3600,ChatGPT,1,1,2,Conversation log\n3610,ChatGPT,1,1,2,Conversation log\n",
			time.Hour, "starts at 3600 s", 10 * time.Second},
		{"native", `{"arrival_ns":7000000000,"output_tokens":1}` + "\n" + `{"arrival_ns":7250000000,"output_tokens":1}` + "\n",
			7 * time.Second, "starts at 7 s", 250 * time.Millisecond},
		{"azure 2024", "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-05-10 00:00:00.009930+00:00,10,2\n2024-05-10 00:00:01+00:00,10,2\n",
			time.Date(2024, 5, 10, 0, 0, 0, 9930000, time.UTC).Sub(time.Unix(0, 0)),
			"starts 2024-05-10 00:00:00.00993 UTC", 990070 * time.Microsecond},
		{"at zero", `{"timestamp": 0, "input_length": 3, "output_length": 1}` + "\n" +
			`{"timestamp": 5, "input_length": 3, "output_length": 1}` + "\n",
			0, "", 5 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := NewReader(strings.NewReader(tc.text), "t", ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if o, ok := fs.Origin(); !ok || o != tc.origin {
				t.Errorf("Origin() = %v, %v; want %v", o, ok, tc.origin)
			}
			if got := fs.OriginText(); got != tc.originText {
				t.Errorf("OriginText() = %q, want %q", got, tc.originText)
			}
			rs, err := ReadAll(fs)
			if err != nil || len(rs) != 2 {
				t.Fatalf("read %d requests, %v", len(rs), err)
			}
			if rs[0].Arrival != 0 || rs[1].Arrival != tc.gap {
				t.Errorf("arrivals %v, %v; want 0, %v", rs[0].Arrival, rs[1].Arrival, tc.gap)
			}
			// A window is relative to the first record: --start skips the
			// first one only, --duration keeps it only.
			for _, w := range []struct {
				o    ArrivalOptions
				want int
			}{{ArrivalOptions{Start: tc.gap / 2}, 1}, {ArrivalOptions{Duration: tc.gap / 2}, 1}, {ArrivalOptions{Duration: 2 * tc.gap}, 2}} {
				fs, _ := NewReader(strings.NewReader(tc.text), "t", ReadOptions{})
				got, err := ReadAll(WithArrivals(fs, w.o))
				if err != nil || len(got) != w.want {
					t.Errorf("%+v: %d requests, %v; want %d", w.o, len(got), err, w.want)
				}
			}
		})
	}
}

// TestOriginKeepsSortError checks a record going back in time is still
// refused, named by its time field, after rebasing.
func TestOriginKeepsSortError(t *testing.T) {
	text := `{"timestamp": 5000, "input_length": 3, "output_length": 1}` + "\n" +
		`{"timestamp": 4000, "input_length": 3, "output_length": 1}` + "\n"
	_, _, err := readString(t, text, ReadOptions{})
	if err == nil || !strings.Contains(err.Error(), "line 2 field timestamp") || !strings.Contains(err.Error(), "sort the trace by time") {
		t.Fatalf("error = %v", err)
	}
}

// TestOriginNoRecords checks Origin on a trace without a valid record
// leaves the error to Next.
func TestOriginNoRecords(t *testing.T) {
	fs, err := NewReader(strings.NewReader(`{"timestamp": 5, "input_length": "x"}`+"\n"), "t", ReadOptions{Format: FormatMooncake})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fs.Origin(); ok || fs.OriginText() != "" {
		t.Errorf("Origin reported a record")
	}
	if _, err := fs.Next(); err == nil || !strings.Contains(err.Error(), "field input_length") {
		t.Errorf("Next error = %v", err)
	}
}
