package replay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tracebench/tracebench/results"
)

// procStatSample is the head of a real /proc/stat of a 2-CPU guest.
const procStatSample = `cpu  1334807 1187 431760 32470616 21890 0 13406 51839 0 0
cpu0 667581 577 215932 16235193 10950 0 9122 25861 0 0
cpu1 667226 610 215828 16235423 10940 0 4284 25978 0 0
intr 126373920 0 9 0 0 0 0 0 0 0 0 0 0 144 0 0 0
ctxt 268406129
btime 1763946000
`

// TestParseProcStat covers the aggregate cpu line as kernels write it
// (with and without steal, guest fields left out of the total) and the
// malformed texts that must fail.
func TestParseProcStat(t *testing.T) {
	for _, tc := range []struct {
		name    string
		text    string
		want    hostCPU
		wantErr string
	}{
		{"real 2-CPU guest", procStatSample, hostCPU{Total: 1334807 + 1187 + 431760 + 32470616 + 21890 + 13406 + 51839,
			Idle: 32470616 + 21890, Steal: 51839, HasSteal: true}, ""},
		{"guest time already in user: not added", "cpu 10 0 5 80 5 0 0 2 7 3\n",
			hostCPU{Total: 102, Idle: 85, Steal: 2, HasSteal: true}, ""},
		{"eight fields: steal is the last", "cpu 1 2 3 4 5 6 7 8", hostCPU{Total: 36, Idle: 9, Steal: 8, HasSteal: true}, ""},
		{"seven fields: no steal", "cpu 1 2 3 4 5 6 7\n", hostCPU{Total: 28, Idle: 9}, ""},
		{"four fields: no iowait, no steal", "cpu 1 2 3 4\n", hostCPU{Total: 10, Idle: 4}, ""},
		{"later fields are ignored", "cpu 1 1 1 1 1 1 1 1 1 1 99 99\n", hostCPU{Total: 8, Idle: 2, Steal: 1, HasSteal: true}, ""},
		{"aggregate line after others", "intr 5\ncpu0 9 9 9 9\ncpu 1 2 3 4\n", hostCPU{Total: 10, Idle: 4}, ""},
		{"tabs and CRLF", "cpu\t1\t2\t3\t4\t0\t0\t0\t6\r\n", hostCPU{Total: 16, Idle: 4, Steal: 6, HasSteal: true}, ""},
		{"empty", "", hostCPU{}, "no aggregate cpu line"},
		{"per-CPU lines only", "cpu0 1 2 3 4\ncpu1 1 2 3 4\n", hostCPU{}, "no aggregate cpu line"},
		{"label glued to a number", "cpu1234 5 6 7\n", hostCPU{}, "no aggregate cpu line"},
		{"three fields", "cpu 1 2 3\n", hostCPU{}, "3 fields"},
		{"label only", "cpu\n", hostCPU{}, "0 fields"},
		{"not a number", "cpu 1 2 x 4 5 6 7 8\n", hostCPU{}, "cpu field 3"},
		{"negative", "cpu 1 2 3 -4\n", hostCPU{}, "cpu field 4"},
		{"fraction", "cpu 1 2 3 4.5\n", hostCPU{}, "cpu field 4"},
		{"bad field past the eighth", "cpu 1 2 3 4 5 6 7 8 9 z\n", hostCPU{}, "cpu field 10"},
		{"too large for 64 bits", "cpu 18446744073709551616 0 0 0\n", hostCPU{}, "cpu field 1"},
		{"sum overflows", "cpu 18446744073709551615 1 0 0\n", hostCPU{}, "overflow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProcStat(tc.text)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q (got %+v)", err, tc.wantErr, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("counters (-want +got):\n%s", d)
			}
		})
	}
}

// TestHostExtra: steal and busy are shares of all CPU time that passed;
// steal is absent when either reading lacks it; nothing is reported when
// no time passed or a counter went backwards.
func TestHostExtra(t *testing.T) {
	at := func(total, idle, steal uint64) hostCPU {
		return hostCPU{Total: total, Idle: idle, Steal: steal, HasSteal: true}
	}
	for _, tc := range []struct {
		name string
		a, b hostCPU
		want map[string]float64
	}{
		{"quiet 5 s on 2 CPUs", at(1000, 900, 5), at(2000, 1700, 6),
			map[string]float64{results.ExtraHostStealPct: 0.1, results.ExtraHostBusyPct: 19.9}},
		{"host took 250 of 1000 ticks", at(1000, 900, 5), at(2000, 1500, 255),
			map[string]float64{results.ExtraHostStealPct: 25, results.ExtraHostBusyPct: 15}},
		{"no steal field", hostCPU{Total: 100, Idle: 50}, hostCPU{Total: 300, Idle: 100},
			map[string]float64{results.ExtraHostBusyPct: 75}},
		{"steal at one end only", at(100, 50, 3), hostCPU{Total: 300, Idle: 100},
			map[string]float64{results.ExtraHostBusyPct: 75}},
		{"no time passed", at(100, 50, 3), at(100, 50, 3), nil},
		{"total went backwards", at(100, 50, 3), at(90, 50, 3), nil},
		{"idle went backwards", at(100, 50, 3), at(200, 40, 3), nil},
		{"steal went backwards", at(100, 50, 3), at(200, 60, 2), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := hostExtra(tc.a, tc.b)
			if d := cmp.Diff(tc.want, got, cmpApprox); d != "" {
				t.Errorf("extras (-want +got):\n%s", d)
			}
		})
	}
}

// cmpApprox compares floats to 1e-9.
var cmpApprox = cmp.Comparer(func(x, y float64) bool { return x-y < 1e-9 && y-x < 1e-9 })

// TestReadHostCPUFile reads the first line of a file, and reports a
// missing or malformed file as unavailable rather than an error.
func TestReadHostCPUFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name   string
		path   string
		want   hostCPU
		wantOK bool
	}{
		{"real layout", write("stat", procStatSample), hostCPU{Total: 34325505, Idle: 32492506, Steal: 51839,
			HasSteal: true}, true},
		{"no trailing newline", write("short", "cpu 1 2 3 4"), hostCPU{Total: 10, Idle: 4}, true},
		{"missing", filepath.Join(dir, "none"), hostCPU{}, false},
		{"empty", write("empty", ""), hostCPU{}, false},
		{"garbage", write("garbage", "no counters here\n"), hostCPU{}, false},
		{"a directory", dir, hostCPU{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := readHostCPUFile(tc.path)
			if ok != tc.wantOK || got != tc.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

// TestRunRecordsHostCPU: a real-time Run puts the CPU shares between its
// first and last reading in the stop line, and nothing when the counters
// cannot be read.
func TestRunRecordsHostCPU(t *testing.T) {
	srv := tokenServer(t, 2, 200, nil, nil)
	for _, tc := range []struct {
		name     string
		readings []hostCPU // nil: unavailable
		want     map[string]float64
	}{
		{"steal", []hostCPU{{Total: 1000, Idle: 900, Steal: 10, HasSteal: true},
			{Total: 2000, Idle: 1600, Steal: 210, HasSteal: true}},
			map[string]float64{results.ExtraHostStealPct: 20, results.ExtraHostBusyPct: 10}},
		{"unavailable", nil, map[string]float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := runOptions(t, 4, srv.URL)
			defer o.Results.Close(results.Stop{Reason: "done"})
			s := newScheduler(o)
			calls := 0
			s.hostCPU = func() (hostCPU, bool) {
				calls++
				if tc.readings == nil {
					return hostCPU{}, false
				}
				return tc.readings[min(calls-1, len(tc.readings)-1)], true
			}
			stop, err := s.run(context.Background())
			if err != nil || stop.Reason != "done" {
				t.Fatalf("stop %+v, err %v", stop, err)
			}
			got := map[string]float64{}
			for _, k := range []string{results.ExtraHostStealPct, results.ExtraHostBusyPct} {
				if v, ok := stop.Extra[k]; ok {
					got[k] = v
				}
			}
			if d := cmp.Diff(tc.want, got, cmpApprox); d != "" || calls != 2 {
				t.Errorf("%d readings; host extras (-want +got):\n%s", calls, d)
			}
		})
	}
}

// FuzzProcStat feeds arbitrary text to the /proc/stat parser: it must
// not panic, must fail with zero counters or return counters where idle
// and steal fit in the total, and steal only with a steal field.
func FuzzProcStat(f *testing.F) {
	f.Add(procStatSample)
	f.Add("cpu 1 2 3 4\n")
	f.Add("cpu 1 2 3 4 5 6 7 8 9 10\n")
	f.Fuzz(func(t *testing.T, text string) {
		h, err := parseProcStat(text)
		if err != nil {
			if h != (hostCPU{}) {
				t.Fatalf("error %v with counters %+v", err, h)
			}
			return
		}
		if h.Idle > h.Total || h.Steal > h.Total || h.Idle+h.Steal > h.Total || !h.HasSteal && h.Steal != 0 {
			t.Fatalf("inconsistent counters %+v from %q", h, text)
		}
	})
}
