package calibrate

import (
	"errors"
	"strings"
	"testing"
)

func TestWriteServers(t *testing.T) {
	fit := func(beta, se float64, identified bool) ServerFit {
		return ServerFit{Result: &Result{Params: []Param{{Name: "beta", Value: beta, StdErr: se, Unit: "ms", Identified: identified}}}}
	}
	tests := []struct {
		name string
		a, b ServerFit
		want string
	}{
		{"alike", fit(5, 1, true), fit(6, 1, true), "no"},
		{"differ", fit(5, 0.5, true), fit(8, 0.5, true), "yes (4.2 std errors)"},
		{"one not fitted", fit(5, 1, true), fit(0, 0, false), "n/a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.b.Backend = 1
			var b strings.Builder
			if err := WriteServers(&b, []ServerFit{tc.a, tc.b}, []string{"http://a", "http://b"}); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			if len(lines) != 2 || !strings.Contains(lines[0], "http://a") || !strings.HasSuffix(strings.TrimSpace(lines[1]), tc.want) {
				t.Fatalf("output:\n%s\nwant the beta row to end with %q", b.String(), tc.want)
			}
		})
	}
	var b strings.Builder
	_ = WriteServers(&b, []ServerFit{fit(5, 1, true), {Backend: 1, Err: errors.New("too few requests")}}, nil)
	if !strings.Contains(b.String(), "backend 1: too few requests") {
		t.Fatalf("a failed fit is not named:\n%s", b.String())
	}
}

func TestOfBackend(t *testing.T) {
	in := &Input{Requests: 5, timelines: []*timeline{
		{backend: 0, reqs: make([]request, 2)}, {backend: 1, reqs: make([]request, 3)}, {backend: 0, reqs: make([]request, 1)}}}
	if got := in.Backends(); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Fatalf("Backends() = %v", got)
	}
	if b0 := in.OfBackend(0); b0.Requests != 3 || len(b0.timelines) != 2 {
		t.Fatalf("OfBackend(0): %d requests in %d timelines, want 3 in 2", b0.Requests, len(b0.timelines))
	}
}
