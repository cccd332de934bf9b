package pace

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkLateness paces 6.1 ms steps against absolute deadlines, as the
// mock's engine loop does, with Until and with a plain runtime timer, and
// reports how late each step ended (p50 and p99, µs):
//
//	go test -run XXX -bench Lateness -benchtime 300x ./internal/pace/
func BenchmarkLateness(b *testing.B) {
	for _, c := range []struct {
		name string
		wait func(*time.Timer, time.Time)
	}{
		{"until", func(t *time.Timer, at time.Time) { Until(context.Background(), t, at) }},
		{"timer", func(t *time.Timer, at time.Time) {
			t.Reset(time.Until(at))
			<-t.C
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			timer := time.NewTimer(time.Hour)
			defer timer.Stop()
			late := make([]float64, 0, b.N)
			at := time.Now()
			for range b.N {
				at = at.Add(6100 * time.Microsecond)
				c.wait(timer, at)
				late = append(late, float64(time.Since(at).Microseconds()))
			}
			slices.Sort(late)
			b.ReportMetric(late[len(late)/2], "p50-late-us")
			b.ReportMetric(late[len(late)*99/100], "p99-late-us")
		})
	}
}
