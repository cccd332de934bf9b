package metrics

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseSLOFile(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    map[string]SLO
		wantErr string
	}{
		{"two users", "users:\n  alice: {ttft: 500ms, tpot: 50ms}\n  bob: {e2e: 30s}\n",
			map[string]SLO{"alice": {TTFT: 500 * time.Millisecond, TPOT: 50 * time.Millisecond}, "bob": {E2E: 30 * time.Second}}, ""},
		{"empty file", "", map[string]SLO{}, ""},
		{"bad duration", "users:\n  alice: {ttft: fast}\n", nil, `user "alice": field ttft`},
		{"negative", "users:\n  bob: {tpot: -1s}\n", nil, `user "bob": field tpot: negative duration`},
		{"misspelt bound", "users:\n  carol: {ttf: 1s}\n", nil, "line 2: field ttf not found"},
		{"not a map", "users: [1, 2]\n", nil, "slo.yaml"},
		{"weights", "users:\n  u0: {weight: 1}\n  u1: {ttft: 1s, weight: 2.5}\n",
			map[string]SLO{"u0": {Weight: 1}, "u1": {TTFT: time.Second, Weight: 2.5}}, ""},
		{"zero weight", "users:\n  u0: {weight: 0}\n", nil, `user "u0": field weight: 0: want a positive number`},
		{"negative weight", "users:\n  u0: {weight: -2}\n", nil, `user "u0": field weight`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSLOFile("slo.yaml", []byte(tt.text))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("SLOs (-want +got):\n%s", d)
			}
		})
	}
}

func TestLoadSLOFileMissing(t *testing.T) {
	_, err := LoadSLOFile(filepath.Join(t.TempDir(), "none.yaml"))
	if err == nil || !strings.Contains(err.Error(), "none.yaml") {
		t.Errorf("error = %v, want one naming the file", err)
	}
}

func TestLoadSLOFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "slo.yaml")
	if err := os.WriteFile(p, []byte("users:\n  u1: {ttft: 2s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := LoadSLOFile(p)
	if err != nil || got["u1"].TTFT != 2*time.Second {
		t.Errorf("LoadSLOFile = %v, %v; want u1 with a 2s TTFT bound", got, err)
	}
}

func TestSLOWeights(t *testing.T) {
	s := SLO{PerUser: map[string]SLO{"a": {Weight: 2}, "b": {TTFT: time.Second}, "c": {Weight: 0.5}}}
	if d := cmp.Diff(map[string]float64{"a": 2, "c": 0.5}, s.Weights()); d != "" {
		t.Errorf("Weights (-want +got):\n%s", d)
	}
	if w := (SLO{}).Weights(); w != nil {
		t.Errorf("no file: Weights = %v, want nil", w)
	}
}

func TestSLOFor(t *testing.T) {
	s := SLO{TTFT: time.Second, TPOT: 100 * time.Millisecond,
		PerUser: map[string]SLO{"vip": {TTFT: 200 * time.Millisecond}}}
	tests := []struct {
		user string
		want SLO
	}{
		{"vip", SLO{TTFT: 200 * time.Millisecond, TPOT: 100 * time.Millisecond}}, // TPOT inherited
		{"other", SLO{TTFT: time.Second, TPOT: 100 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.user, func(t *testing.T) {
			if d := cmp.Diff(tt.want, s.For(tt.user)); d != "" {
				t.Errorf("For(%q) (-want +got):\n%s", tt.user, d)
			}
		})
	}
}

func FuzzParseSLOFile(f *testing.F) {
	f.Add([]byte("users:\n  alice: {ttft: 500ms, tpot: 50ms}\n"))
	f.Add([]byte("users: {}\n"))
	f.Add([]byte("users:\n  b: {e2e: -3s}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseSLOFile("fuzz.yaml", b)
		if err != nil {
			return
		}
		for u, s := range got {
			if s.TTFT < 0 || s.TPOT < 0 || s.E2E < 0 {
				t.Errorf("user %q: negative bound accepted: %+v", u, s)
			}
			if s.Weight < 0 || math.IsNaN(s.Weight) || math.IsInf(s.Weight, 0) {
				t.Errorf("user %q: weight %g accepted", u, s.Weight)
			}
		}
	})
}
