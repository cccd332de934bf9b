package traces

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// unitProbeRows is how many timestamped rows at the start of a Mooncake
// trace checkMooncakeUnit looks at (fewer when the read buffer holds
// fewer complete lines).
const unitProbeRows = 256

// checkMooncakeUnit refuses a Mooncake-format trace whose timestamps
// look like seconds although the format's unit is milliseconds (some
// published traces in this layout count seconds). Read as ms, such a
// trace would run 1000× too fast without a word. The sign: over the
// first rows, fractional values with a mean gap below 1 unit, i.e. above
// 1,000 req/s if read as ms, where the published ms traces (Mooncake's
// FAST'25 release) hold integers with gaps of hundreds of ms. The error
// asks for --time-unit, which skips this check. It does not consume br.
func checkMooncakeUnit(br *bufio.Reader) error {
	head, _ := br.Peek(br.Size())
	var ts []float64
	frac := false
	for len(head) > 0 && len(ts) < unitProbeRows {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			break // an incomplete last line
		}
		line := head[:i]
		head = head[i+1:]
		var rec struct {
			Timestamp *float64 `json:"timestamp"`
		}
		if json.Unmarshal(bytes.TrimPrefix(line, []byte(bom)), &rec) != nil || rec.Timestamp == nil {
			continue
		}
		ts = append(ts, *rec.Timestamp)
		frac = frac || *rec.Timestamp != math.Trunc(*rec.Timestamp)
	}
	if len(ts) < 2 || !frac {
		return nil
	}
	span := ts[len(ts)-1] - ts[0]
	gap := span / float64(len(ts)-1)
	if span <= 0 || gap >= 1 {
		return nil
	}
	return fmt.Errorf("field timestamp: the first %d timestamps look like seconds, not the format's milliseconds "+
		"(fractional, a mean gap of %.3g, i.e. %.0f req/s if read as ms): pass ReadOptions.TimeUnit s, or ReadOptions.TimeUnit ms to read them as ms",
		len(ts), gap, 1000/gap)
}
