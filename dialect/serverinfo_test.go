package dialect

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestDescribe: the server's owner decides what more is asked: llama.cpp
// is asked for its slots (/props), vLLM is not; a server without
// /v1/models says nothing.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		name, models string
		want         *ServerInfo
		props        bool // /props was asked
	}{
		{"llama.cpp", `{"data":[{"id":"m","owned_by":"llamacpp"}]}`, &ServerInfo{OwnedBy: LlamaCpp, Slots: 4, SlotContext: 1024}, true},
		{"vLLM", `{"data":[{"id":"m","owned_by":"vllm"}]}`, &ServerInfo{OwnedBy: VLLM}, false},
		{"no models", "", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.URL.Path == "/v1/models" && tc.models != "":
					w.Write([]byte(tc.models))
				case r.URL.Path == "/props":
					asked = true
					w.Write([]byte(`{"total_slots":4,"default_generation_settings":{"n_ctx":1024}}`))
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			got := Describe(context.Background(), srv.Client(), srv.URL)
			if (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want || asked != tc.props {
				t.Fatalf("Describe = %+v (props asked %v), want %+v (%v)", got, asked, tc.want, tc.props)
			}
		})
	}
}

func TestSlots(t *testing.T) {
	for _, name := range Names() {
		d, _ := Lookup(name)
		if got := d.Slots() != nil; got != (name == LlamaCpp) {
			t.Errorf("%s: per-slot %v, want %v", name, got, name == LlamaCpp)
		}
	}
}
