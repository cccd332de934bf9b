package calibrate

import (
	"slices"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/mockserver/profile"
)

// TestStartFor checks the cache model chosen from the server that
// answered the runs.
func TestStartFor(t *testing.T) {
	def, err := profile.Builtin(profile.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		in        Input
		choice    string
		cache     string
		seqs, ctx int
		blocks    int
		wantErr   bool
	}{
		{"vllm keeps paged", Input{Server: "vllm"}, CacheAuto, profile.CachePagedPrefix, 256, 8192, 16384, false},
		{"unknown keeps paged", Input{}, "", profile.CachePagedPrefix, 256, 8192, 16384, false},
		{"llamacpp per-slot", Input{Server: "llamacpp", Slots: 4, SlotContext: 4096}, CacheAuto, profile.CachePerSlot, 4, 4096, 1024, false},
		{"forced per-slot", Input{Server: "vllm"}, profile.CachePerSlot, profile.CachePerSlot, 256, 8192, 131072, false},
		{"forced paged on llamacpp", Input{Server: "llamacpp", Slots: 4}, profile.CachePagedPrefix, profile.CachePagedPrefix, 256, 8192, 16384, false},
		{"bad choice", Input{}, "radix", "", 0, 0, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _, err := startFor(def, &tc.in, tc.choice, 0)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			e := p.Engine
			if e.Cache != tc.cache || e.MaxNumSeqs != tc.seqs || e.MaxModelLen != tc.ctx || e.NumGPUBlocks != tc.blocks {
				t.Errorf("cache %s seqs %d ctx %d blocks %d, want %s %d %d %d",
					e.Cache, e.MaxNumSeqs, e.MaxModelLen, e.NumGPUBlocks, tc.cache, tc.seqs, tc.ctx, tc.blocks)
			}
			if def.Engine.Cache != profile.CachePagedPrefix || def.Engine.MaxNumSeqs != 256 {
				t.Fatal("the starting profile was modified")
			}
		})
	}
}

// TestOptionalFor: attention is an optional term of a fit, except on a
// llama.cpp server (per-slot cache), where it is always fitted.
func TestOptionalFor(t *testing.T) {
	for _, tc := range []struct {
		cache  string
		attend bool
	}{
		{profile.CachePagedPrefix, true},
		{profile.CachePerSlot, false},
	} {
		p := &profile.Profile{}
		p.Engine.Cache = tc.cache
		if got := slices.Contains(optionalFor(p), colAttend); got != tc.attend {
			t.Errorf("cache %s: c_attend optional %v, want %v", tc.cache, got, tc.attend)
		}
	}
}

// TestStartForRefusesLlamaOnVLLM: a llama.cpp-family starting profile
// against runs a vLLM or SGLang server answered is refused, naming the
// profile and the server; against llama.cpp or an unknown server it is
// kept.
func TestStartForRefusesLlamaOnVLLM(t *testing.T) {
	def, err := profile.Builtin(profile.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	llama := *def
	llama.Name, llama.Engine.Cache = "gpu8b", profile.CachePerSlot
	for _, tc := range []struct {
		server  string
		wantErr bool
	}{
		{"vllm", true}, {"sglang", true}, {"llamacpp", false}, {"", false},
	} {
		_, _, err := startFor(&llama, &Input{Server: tc.server, Slots: 4}, CacheAuto, 0)
		if (err != nil) != tc.wantErr {
			t.Fatalf("server %q: err %v, want error %v", tc.server, err, tc.wantErr)
		}
		if err != nil && !(strings.Contains(err.Error(), "gpu8b is a llama.cpp-family profile") && strings.Contains(err.Error(), tc.server)) {
			t.Errorf("server %q: %v: want the profile and the server named", tc.server, err)
		}
	}
}
