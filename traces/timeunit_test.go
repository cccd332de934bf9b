package traces

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// secondsTrace is a Mooncake-layout trace whose timestamps count seconds
// (4 req/s), as some published Alibaba/Qwen traces do.
func secondsTrace(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"timestamp": %.3f, "input_length": 10, "output_length": 2}`+"\n", 12.5+0.25*float64(i))
	}
	return b.String()
}

func TestTimeUnit(t *testing.T) {
	tests := []struct {
		name, format, unit, text string
		gap                      time.Duration // second arrival
		err                      string
	}{
		{"mooncake seconds refused", FormatMooncake, "", secondsTrace(20), 0, "look like seconds"},
		{"mooncake seconds refused auto", "", "", secondsTrace(20), 0, "pass ReadOptions.TimeUnit s"},
		{"mooncake seconds read as s", "", "s", secondsTrace(20), 250 * time.Millisecond, ""},
		{"mooncake seconds kept as ms", "", "ms", secondsTrace(20), 250 * time.Microsecond, ""},
		{"mooncake integer ms accepted", "", "", `{"timestamp": 0, "input_length": 1}` + "\n" + `{"timestamp": 3000, "input_length": 1}` + "\n", 3 * time.Second, ""},
		{"mooncake us", "", "us", `{"timestamp": 0, "input_length": 1}` + "\n" + `{"timestamp": 3000, "input_length": 1}` + "\n", 3 * time.Millisecond, ""},
		{"vtc ms", "", "ms", `{"timestamp_s": 1, "client": "a", "input_length": 1, "output_length": 1}` + "\n" +
			`{"timestamp_s": 5, "client": "a", "input_length": 1, "output_length": 1}` + "\n", 4 * time.Millisecond, ""},
		{"burstgpt ms", "", "ms", "Timestamp,Model,Request tokens,Response tokens\n10,ChatGPT,1,1\n30,ChatGPT,1,1\n", 20 * time.Millisecond, ""},
		{"native refuses", "", "s", `{"arrival_ns": 1, "output_tokens": 1}` + "\n", 0, "the native format's times have a fixed unit"},
		{"azure refuses", "", "ms", "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-05-10 00:00:00+00:00,1,1\n", 0, "ReadOptions.TimeUnit applies to bailian, ragpulse, mooncake, vtc, burstgpt"},
		{"unknown unit", "", "min", `{"timestamp_s": 1, "client": "a", "input_length": 1, "output_length": 1}` + "\n", 0, `ReadOptions.TimeUnit "min": want one of s, ms, us, ns`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, _, err := readString(t, tc.text, ReadOptions{Format: tc.format, TimeUnit: tc.unit})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) < 2 || rs[1].Arrival != tc.gap {
				t.Fatalf("second arrival of %d: %v, want %v", len(rs), rs[min(1, len(rs)-1)].Arrival, tc.gap)
			}
		})
	}
}

// TestTimeRangeErrorsGiveUnit checks an out-of-range time names its unit.
func TestTimeRangeErrorsGiveUnit(t *testing.T) {
	tests := []struct{ text, unit, want string }{
		{`{"timestamp": -5, "input_length": 1}`, "", "field timestamp: time -5 ms out of range"},
		{`{"timestamp": 1e300, "input_length": 1}`, "s", "field timestamp: time 1e+300 s out of range: want 0 to 9.223e+09 s"},
		{`{"session_id": 1, "input_length": 1}` + "\n" + `{"session_id": 1, "delay": -1, "input_length": 1}`, "", "field delay: time -1 ms out of range"},
		{`{"timestamp_s": -1, "client": "a", "input_length": 1, "output_length": 1}`, "", "field timestamp_s: time -1 s out of range"},
		{"Timestamp,Request tokens,Response tokens\n-2,1,1\n", "", "field Timestamp: time -2 s out of range"},
	}
	for _, tc := range tests {
		_, _, err := readString(t, tc.text+"\n", ReadOptions{TimeUnit: tc.unit})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestForcedFormatMismatch checks a ReadOptions.Format that does not fit the file
// is an error naming the fields the file has.
func TestForcedFormatMismatch(t *testing.T) {
	vtc := `{"req_id": 0, "timestamp_s": 0.0, "client": "c", "input_length": 13, "output_length": 199}` + "\n"
	tests := []struct{ format, text, want string }{
		{FormatMooncake, vtc, "ReadOptions.Format mooncake: the first record has fields client, input_length, output_length, req_id, timestamp_s, " +
			"but mooncake needs input_length and one of timestamp, hash_ids, session_id, delay; it looks like vtc (ReadOptions.Format vtc or auto)"},
		{FormatVTC, `{"timestamp": 0, "input_length": 1, "hash_ids": [0]}`, "the first record has fields hash_ids, input_length, timestamp, but vtc needs timestamp_s and client; it looks like mooncake"},
		{FormatNative, vtc, "but native needs arrival_ns and output_tokens"},
	}
	for _, tc := range tests {
		_, _, err := readString(t, tc.text, ReadOptions{Format: tc.format})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadOptions.Format %s: error %v, want %q", tc.format, err, tc.want)
		}
	}
}

// TestByteOrderMark checks a UTF-8 BOM is accepted in every format.
func TestByteOrderMark(t *testing.T) {
	for _, text := range []string{
		`{"timestamp": 0, "input_length": 1, "output_length": 1}`,
		`{"timestamp_s": 0, "client": "a", "input_length": 1, "output_length": 1}`,
		`{"arrival_ns": 0, "output_tokens": 1}`,
		`[{"id": "c", "conversations": [{"from": "human", "value": "hi"}]}]`,
		"Timestamp,Request tokens,Response tokens\n0,1,1",
	} {
		rs, _, err := readString(t, bom+text+"\n", ReadOptions{})
		if err != nil || len(rs) != 1 {
			t.Errorf("%s: %d requests, %v", text, len(rs), err)
		}
	}
}
