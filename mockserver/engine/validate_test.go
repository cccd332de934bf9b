package engine

import (
	"math"
	"testing"
	"time"
)

func TestValidateHelpers(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string // "" : nil
	}{
		{"int at least", atLeast(engineConfig, "BlockSize", 1, 1), ""},
		{"int below", atLeast(engineConfig, "BlockSize", 0, 1), "engine config: BlockSize 0: want ≥ 1"},
		{"int negative", atLeast(engineConfig, "LoRA.MaxLoras", -3, 0), "engine config: LoRA.MaxLoras -3: want ≥ 0"},
		{"duration zero", atLeast(latencyModel, "Beta", time.Duration(0), 0), ""},
		{"duration below", atLeast(latencyModel, "StepOverhead", -1500*time.Microsecond, 0), "latency model: StepOverhead -1.5ms: want ≥ 0"},
		{"unit low end", inUnit(engineConfig, "SlotSimilarity", 0), ""},
		{"unit high end", inUnit(engineConfig, "SlotSimilarity", 1), ""},
		{"unit above", inUnit(latencyModel, "Jitter", 1.5), "latency model: Jitter 1.5: want in [0, 1]"},
		{"unit below", inUnit(latencyModel, "Jitter", -0.25), "latency model: Jitter -0.25: want in [0, 1]"},
		{"unit NaN", inUnit(latencyModel, "Jitter", math.NaN()), "latency model: Jitter NaN: want in [0, 1]"},
		{"one of a", oneOf(engineConfig, "Batching", Continuous, Continuous, Static), ""},
		{"one of b", oneOf(engineConfig, "Batching", Static, Continuous, Static), ""},
		{"one of neither", oneOf(engineConfig, "Batching", "", Continuous, Static), `engine config: Batching "": want "continuous" or "static"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if tc.err != nil {
				got = tc.err.Error()
			}
			if got != tc.want {
				t.Errorf("error %q, want %q", got, tc.want)
			}
		})
	}
}

// TestConfigValidateOrder: the first invalid field is the one reported,
// in the order Validate checks them.
func TestConfigValidateOrder(t *testing.T) {
	c := DefaultConfig()
	c.MaxModelLen, c.Batching, c.RequestOverhead = 1, "", -time.Second
	c.Cache, c.HostCacheTokens, c.EOSProbability = "x", -1, 2
	for _, want := range []string{
		"engine config: MaxModelLen 1: want ≥ 2",
		`engine config: Batching "": want "continuous" or "static"`,
		"engine config: RequestOverhead -1s: want ≥ 0",
		`engine config: Cache "x": want "paged-prefix" or "per-slot"`,
		"engine config: HostCacheTokens -1: want ≥ 0",
		"engine config: EOSProbability 2: want in [0, 1]",
	} {
		err := c.Validate()
		if err == nil || err.Error() != want {
			t.Fatalf("Validate = %v, want %q", err, want)
		}
		switch {
		case c.MaxModelLen == 1:
			c.MaxModelLen = 8192
		case c.Batching == "":
			c.Batching = Continuous
		case c.RequestOverhead < 0:
			c.RequestOverhead = 0
		case c.Cache == "x":
			c.Cache = ""
		case c.HostCacheTokens < 0:
			c.HostCacheTokens = 0
		default:
			c.EOSProbability = 0
		}
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate after fixing every field = %v", err)
	}
}
