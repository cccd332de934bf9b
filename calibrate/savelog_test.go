package calibrate

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// logLines is a llama-server log excerpt (b7099): a save, a restore
// with a save, a save of a prompt the cache holds, and other lines.
const logLines = `slot get_availabl: id  3 | task -1 | selected slot by LRU, t_last = 66057561968
srv  get_availabl: updating prompt cache
srv   prompt_save:  - saving prompt with length 262, total state size = 1.027 MiB
srv          load:  - looking for better prompt, base f_keep = 0.000, sim = 0.000
srv        update:  - cache state: 1 prompts, 1.027 MiB (limits: 8192.000 MiB, 8192 tokens, 2090785 est)
srv  get_availabl: prompt cache update took 1.09 ms
srv  log_server_r: request: POST /completion 127.0.0.1 200
srv  get_availabl: updating prompt cache
srv   prompt_save:  - saving prompt with length 400, total state size = 1.5 MiB
srv          load:  - found better prompt with f_keep = 0.900, sim = 0.800
srv  get_availabl: prompt cache update took 3.50 ms
srv  get_availabl: updating prompt cache
srv   prompt_save:  - saving prompt with length 120, total state size = 0.4 MiB
srv        alloc:  - prompt is already in the cache, skipping
srv  get_availabl: prompt cache update took 0.20 ms
srv  get_availabl: updating prompt cache
srv   prompt_save:  - saving prompt with length 99, total state size = 0.4 MiB
`

func TestReadSaveLog(t *testing.T) {
	l, err := ReadSaveLog(strings.NewReader(logLines), "server-0.log")
	if err != nil {
		t.Fatal(err)
	}
	want := []CacheUpdate{
		{Saved: 262, Took: 1090 * time.Microsecond},
		{Saved: 400, Restored: true, Took: 3500 * time.Microsecond},
		{Saved: 120, Held: true, Took: 200 * time.Microsecond},
	} // the last update is cut mid-way: dropped
	if d := cmp.Diff(want, l.Updates); d != "" {
		t.Errorf("updates (-want +got):\n%s", d)
	}
	if got := l.Saves(); got != 2 {
		t.Errorf("Saves() = %d, want 2 (a held prompt copies nothing)", got)
	}
}

func TestReadSaveLogErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"bad time", "updating prompt cache\nprompt cache update took x1 ms\n", `s.log:2: prompt cache update took: "x1" is not a number`},
		{"negative time", "updating prompt cache\nprompt cache update took -1 ms\n", `s.log:2: prompt cache update took: "-1" is not a number`},
		{"bad length", "a\nupdating prompt cache\n - saving prompt with length many, total\n", `s.log:3: saving prompt with length: "many" is not a number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadSaveLog(strings.NewReader(tc.in), "s.log")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSaveCostOf(t *testing.T) {
	var l SaveLog
	for i := range 40 {
		n := 100 + 10*i
		d := 0.001 + 2e-6*float64(n) + 1e-5*float64(i%3-1) // 1 ms + 2 µs a token, ±10 µs
		l.Updates = append(l.Updates, CacheUpdate{Saved: n, Took: time.Duration(d * 1e9)})
	}
	l.Updates = append(l.Updates, CacheUpdate{Saved: 300, Restored: true, Took: time.Second}) // a restore: left out
	c, err := SaveCostOf([]SaveLog{l})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.Fixed-0.001) > 2e-5 || math.Abs(c.PerToken-2e-6) > 1e-7 || c.N != 40 || c.FixedSE <= 0 || c.PerTokenSE <= 0 {
		t.Errorf("cost %+v, want 1 ms + 2 µs a token over 40 saves", c)
	}
	flat := SaveLog{Updates: l.Updates[:12]}
	for i := range flat.Updates {
		flat.Updates[i].Saved = 200
	}
	if c, err := SaveCostOf([]SaveLog{flat}); err != nil || c.PerToken != 0 || c.Fixed <= 0 {
		t.Errorf("one saved length: %+v, %v; want the mean time alone", c, err)
	}
	if _, err := SaveCostOf([]SaveLog{{Updates: l.Updates[:3]}}); err == nil {
		t.Error("3 saves priced; want an error")
	}
}

// FuzzReadSaveLog: any input reads or fails with one line naming the
// file; every update read has a time and no negative length.
func FuzzReadSaveLog(f *testing.F) {
	f.Add([]byte(logLines))
	f.Add([]byte("updating prompt cache\nprompt cache update took 1e308 ms\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ReadSaveLog(bytes.NewReader(data), "f.log")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.log") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q does not name the file on one line", err)
			}
			return
		}
		for _, u := range l.Updates {
			if u.Saved < 0 || u.Took < 0 {
				t.Fatalf("bad update %+v", u)
			}
		}
	})
}

// TestSaveCostNeverNegative: saves whose time falls with their length
// (noise) price the mean time, not a negative per-token cost.
func TestSaveCostNeverNegative(t *testing.T) {
	var l SaveLog
	for i := range 20 {
		n := 100 + 20*i
		l.Updates = append(l.Updates, CacheUpdate{Saved: n, Took: time.Duration(3e6 - 1e3*float64(n))}) // 3 ms − 1 µs a token
	}
	c, err := SaveCostOf([]SaveLog{l})
	if err != nil {
		t.Fatal(err)
	}
	if c.PerToken != 0 || c.Fixed <= 0 || c.PerTokenSE != 0 {
		t.Errorf("cost %+v: want the mean time and no per-token term", c)
	}
}
