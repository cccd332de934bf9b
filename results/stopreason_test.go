package results

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestStopReasonJSON: every stop reason is written to a results file's
// stop line as the string files have always held, and read back as the
// same constant.
func TestStopReasonJSON(t *testing.T) {
	for _, tc := range []struct {
		reason StopReason
		line   string
	}{
		{StopDone, `{"reason":"done","elapsed":0}`},
		{StopInterrupted, `{"reason":"interrupted","elapsed":0}`},
		{StopErrorLimit, `{"reason":"error-limit","elapsed":0}`},
		{StopAsMeasured, `{"reason":"stopped-as-measured","elapsed":0}`},
		{StopIncomplete, `{"reason":"incomplete: a shard has no stop line","elapsed":0}`},
		{StopError(errors.New("read requests: bad line")), `{"reason":"error: read requests: bad line","elapsed":0}`},
	} {
		b, err := json.Marshal(Stop{Reason: tc.reason})
		if err != nil || string(b) != tc.line {
			t.Errorf("%q: wrote %s (%v), want %s", tc.reason, b, err, tc.line)
		}
		var back Stop
		if err := json.Unmarshal([]byte(tc.line), &back); err != nil || back.Reason != tc.reason {
			t.Errorf("%s: read %q (%v), want %q", tc.line, back.Reason, err, tc.reason)
		}
	}
}
