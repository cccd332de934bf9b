package calibrate

import (
	"math"
	"time"

	"github.com/tracebench/tracebench/mockserver/engine"
)

// engineTerm is one parameter the engine replay fits: a positive
// duration of the engine configuration, found in log space.
type engineTerm struct {
	name  string
	unit  string  // "us", "ms" or ""
	per   float64 // seconds (or 1) per unit
	field func(*engine.Config) *time.Duration
}

// set sets the term's duration in c to v seconds.
func (t engineTerm) set(c *engine.Config, v float64) { *t.field(c) = secs(v) }

// get returns the term's duration in c, in seconds.
func (t engineTerm) get(c engine.Config) float64 { return t.field(&c).Seconds() }

// llamaTerms are the llama.cpp server's terms, in fit order.
var llamaTerms = []engineTerm{
	{"c_prefill", "us", 1e-6, func(c *engine.Config) *time.Duration { return &c.Latency.PrefillPerToken }},
	{"beta", "ms", 1e-3, func(c *engine.Config) *time.Duration { return &c.Latency.Beta }},
	{"c_decode", "us", 1e-6, func(c *engine.Config) *time.Duration { return &c.Latency.DecodePerToken }},
	{"save_fixed", "ms", 1e-3, func(c *engine.Config) *time.Duration { return &c.LlamaCpp.SaveFixed }},
	{"save_per_token", "us", 1e-6, func(c *engine.Config) *time.Duration { return &c.LlamaCpp.SavePerToken }},
	{"restore_fixed", "ms", 1e-3, func(c *engine.Config) *time.Duration { return &c.LlamaCpp.RestoreFixed }},
	{"restore_per_token", "us", 1e-6, func(c *engine.Config) *time.Duration { return &c.LlamaCpp.RestorePerToken }},
	{"request_overhead", "ms", 1e-3, func(c *engine.Config) *time.Duration { return &c.RequestOverhead }},
}

// secs converts seconds to a duration.
func secs(v float64) time.Duration { return time.Duration(math.Round(v * 1e9)) }
