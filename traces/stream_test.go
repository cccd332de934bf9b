package traces

import (
	"io"
	"runtime"
	"strconv"
	"testing"
)

// mooncakeStream produces n Mooncake lines on the fly (24 hash ids each,
// about 200 bytes), so a test can read a trace far larger than the memory
// it allows itself.
type mooncakeStream struct {
	n, i int
	buf  []byte
}

func (m *mooncakeStream) Read(p []byte) (int, error) {
	for len(m.buf) == 0 {
		if m.i >= m.n {
			return 0, io.EOF
		}
		b := append(m.buf[:0], `{"timestamp": `...)
		b = strconv.AppendInt(b, int64(m.i)*100, 10)
		b = append(b, `, "input_length": 12288, "output_length": 300, "hash_ids": [`...)
		for j := 0; j < 24; j++ {
			if j > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, int64(m.i*24+j), 10)
		}
		m.buf = append(b, "]}\n"...)
		m.i++
	}
	n := copy(p, m.buf)
	m.buf = m.buf[n:]
	return n, nil
}

// TestReadStreamsInBoundedMemory reads about 8 MB of Mooncake lines and
// checks the live heap stays under 2 MB throughout: the reader holds one
// line, not the trace.
func TestReadStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 8 MB")
	}
	const lines = 40_000
	fs, err := NewReader(&mooncakeStream{n: lines}, "stream", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var peak uint64
	var ms runtime.MemStats
	for n := 0; ; n++ {
		_, err := fs.Next()
		if err == io.EOF {
			if n != lines {
				t.Fatalf("read %d requests, want %d", n, lines)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n%4_000 == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
		}
	}
	t.Logf("peak live heap %.2f MB over %d requests", float64(peak)/(1<<20), lines)
	if peak > 2<<20 {
		t.Errorf("live heap reached %d MB while streaming 8 MB", peak>>20)
	}
}

// BenchmarkReadMooncake reads the Mooncake conversation trace (12,031
// requests, 3 MB) end to end and reports ns and allocations per request.
func BenchmarkReadMooncake(b *testing.B) {
	path := sharedTrace(b, "mooncake/conversation_trace.jsonl")
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	reqs := 0
	for b.Loop() {
		fs, err := Open(path, ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := fs.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
			reqs++
		}
		fs.Close()
	}
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(reqs), "ns/req")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(reqs), "allocs/req")
	b.ReportMetric(float64(reqs)/b.Elapsed().Seconds(), "req/s")
}
