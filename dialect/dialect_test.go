package dialect

import (
	"reflect"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"vllm", VLLM, true}, {"SGLang", SGLang, true}, {"llama.cpp", LlamaCpp, true},
		{"llamacpp", LlamaCpp, true}, {" openai ", OpenAI, true}, {"tgi", "", false}, {"auto", "", false},
	} {
		d, err := Lookup(tc.in)
		if (err == nil) != tc.ok || (tc.ok && d.Name != tc.want) {
			t.Errorf("Lookup(%q) = %v, %v; want %q ok=%v", tc.in, d, err, tc.want, tc.ok)
		}
	}
	if _, err := Lookup("tgi"); err == nil || !strings.Contains(err.Error(), `"tgi"`) || !strings.Contains(err.Error(), "llamacpp") {
		t.Errorf("unknown dialect error %v should name the input and the choices", err)
	}
	if !Valid("auto") || !Valid("vllm") || Valid("x") {
		t.Error("Valid disagrees with Lookup")
	}
}

func TestBodyExtras(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		want map[string]any
	}{
		{VLLM, 7, map[string]any{"ignore_eos": true, "min_tokens": 7}},
		{VLLM, 0, map[string]any{"ignore_eos": true}},
		{SGLang, 3, map[string]any{"ignore_eos": true, "min_tokens": 3}},
		{LlamaCpp, 5, map[string]any{"ignore_eos": true, "cache_prompt": true}},
		{OpenAI, 5, nil},
	} {
		d, _ := Lookup(tc.name)
		if got := d.BodyExtras(tc.n); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s BodyExtras(%d) = %v, want %v", tc.name, tc.n, got, tc.want)
		}
	}
}

func TestUsage(t *testing.T) {
	details := Raw{HasUsage: true, PromptTokens: 100, CompletionTokens: 5, HasDetailsCached: true, DetailsCached: 64}
	timings := Raw{HasUsage: true, PromptTokens: 11, CompletionTokens: 4, HasTimings: true, CacheN: 9, PromptN: 2}
	timingsOnly := Raw{HasTimings: true, CacheN: 9, PromptN: 2}
	plain := Raw{HasUsage: true, PromptTokens: 10, CompletionTokens: 2}
	for _, tc := range []struct {
		dialect string
		raw     Raw
		want    Usage
	}{
		{VLLM, details, Usage{Prompt: 100, Completion: 5, Cached: 64, CachedKnown: true}},
		{VLLM, plain, Usage{Prompt: 10, Completion: 2}},
		{VLLM, timings, Usage{Prompt: 11, Completion: 4}},
		{SGLang, details, Usage{Prompt: 100, Completion: 5, Cached: 64, CachedKnown: true}},
		{LlamaCpp, timings, Usage{Prompt: 11, Completion: 4, Cached: 9, CachedKnown: true}},
		{LlamaCpp, timingsOnly, Usage{Prompt: 11, Cached: 9, CachedKnown: true}},
		{LlamaCpp, details, Usage{Prompt: 100, Completion: 5, Cached: 64, CachedKnown: true}},
		{LlamaCpp, plain, Usage{Prompt: 10, Completion: 2}},
		{OpenAI, details, Usage{Prompt: 100, Completion: 5, Cached: 64, CachedKnown: true}},
		{OpenAI, plain, Usage{Prompt: 10, Completion: 2}},
	} {
		d, _ := Lookup(tc.dialect)
		if got := d.Usage(&tc.raw); got != tc.want {
			t.Errorf("%s Usage(%+v) = %+v, want %+v", tc.dialect, tc.raw, got, tc.want)
		}
	}
}
