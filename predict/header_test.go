package predict

import (
	"testing"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/results"
)

func TestCheckCacheModel(t *testing.T) {
	llama := results.RunConfig{Server: &dialect.ServerInfo{OwnedBy: dialect.LlamaCpp}}
	vllm := results.RunConfig{Dialect: dialect.VLLM}
	tests := []struct {
		name    string
		cache   string
		mode    results.Mode
		config  results.RunConfig
		refused bool
		noted   bool
	}{
		{"per-slot against vLLM", profile.CachePerSlot, "target", vllm, true, false},
		{"per-slot against SGLang", profile.CachePerSlot, "target", results.RunConfig{Dialect: dialect.SGLang}, true, false},
		{"per-slot against llama.cpp", profile.CachePerSlot, "target", llama, false, false},
		{"paged against llama.cpp", profile.CachePagedPrefix, "target", llama, false, true},
		{"default against vLLM", "", "target", vllm, false, false},
		{"per-slot against a simulated run", profile.CachePerSlot, "sim", vllm, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &profile.Profile{Name: "fit"}
			p.Engine.Cache = tc.cache
			note, err := checkCacheModel(p, results.Header{Mode: tc.mode, Config: tc.config}, "run.jsonl")
			if (err != nil) != tc.refused || (note != "") != tc.noted {
				t.Fatalf("note %q, err %v: want refused %v, noted %v", note, err, tc.refused, tc.noted)
			}
		})
	}
}
