//go:build !race

package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/mockserver"
	"github.com/tracebench/tracebench/mockserver/profile"
)

// llamaTruth is a llama.cpp-like server with known terms: 4 slots, the
// host prompt cache, slot saves and restores, the KV cache split per
// slot, 6 HTTP workers.
const llamaTruth = `name: llama-truth
description: 'a llama.cpp-like server with known terms'
engine:
  cache: per-slot
  host_cache_tokens: 65536
  batching: continuous
  max_num_seqs: 4
  max_num_batched_tokens: 2048
  num_gpu_blocks: 1024
  block_size: 16
  max_model_len: 4096
  eos_probability: 0
  eviction: lru
latency:
  c_prefill: 200us
  c_decode: 1ms
  beta: 3ms
  jitter: 0.02
  request_overhead: 2ms
llamacpp:
  save_fixed: 30ms
  save_per_token: 40us
  restore_fixed: 30ms
  restore_per_token: 40us
  split_kv: true
  http_workers: 6
`

// llamaTermTargets are the accuracy targets of the recovered terms, in
// relative error: a missed target is marked, an error past the bound
// fails. The per-token costs of the saves and restores are read from
// fewer requests than the fixed ones.
var llamaTermTargets = map[string][2]float64{
	"c_prefill": {0.10, 0.25}, "beta": {0.15, 0.35}, "c_decode": {0.15, 0.35},
	"save_fixed": {0.10, 0.25}, "save_per_token": {0.15, 0.50},
	"restore_fixed": {0.15, 0.50}, "restore_per_token": {0.25, 0.75},
}

// TestCalibrateOnMockAccuracyLlamaCpp: against a mock that answers as
// llama-server (/props, slots, id_slot) over loopback HTTP with the terms
// of llamaTruth, calibrate's probe runs the llama.cpp phases and its
// engine replay recovers every term: the prompt cost, a ubatch's fixed
// cost apart from the per-sequence one (the pinned-slot phase), and the
// slot save's and restore's fixed and per-token costs.
func TestCalibrateOnMockAccuracyLlamaCpp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a minute of real-time mock probe and a minute of fit")
	}
	dir := t.TempDir()
	prof := writeProfile(t, dir, llamaTruth)
	truth, err := profile.Load(prof)
	if err != nil {
		t.Fatal(err)
	}
	fleet, err := mockserver.StartFleet(t.Context(), mockserver.FleetConfig{Replicas: 1, Host: "127.0.0.1",
		Options: mockserver.Options{Engine: truth.Config(), Tokenizer: "whitespace", TimeScale: 1, Dialect: dialect.LlamaCpp}})
	if err != nil {
		t.Fatal(err)
	}
	defer fleet.Close()
	fitted := filepath.Join(dir, "fit.yaml")
	var so, se bytes.Buffer
	code := Run([]string{"calibrate", "--target", fleet.URLs()[0], "--from", filepath.Join("testdata", "llama-cpp-np4.yaml"),
		"--probe-dir", filepath.Join(dir, "probe"), "--probe-budget", "50s", "--probe-max-prompt", "512",
		"--probe-seed", "11", "--engine-replay", "on", "--host-cache-tokens", "65536", "-o", fitted}, &so, &se)
	if code != 0 {
		t.Fatalf("calibrate exit %d: %s", code, se.String())
	}
	t.Logf("calibrate:\n%s\n%s", se.String(), so.String())
	late := fleet.Lateness()
	// The probe ends with a repeat of its first phase; the mock's speed
	// is its model's, so calibrate must find that it held.
	if !strings.Contains(so.String(), "the servers' speed held") {
		if strings.Contains(so.String(), "the servers' speed moved") {
			mark(t, "TARGET MISSED "+t.Name()+" mock_speed_moved_over_the_probe (the mock's decode speed is its model's; target: within 10 %)")
		} else {
			t.Errorf("calibrate did not compare the probe's first phase with its repeat:\n%s", so.String())
		}
	}
	fit, err := profile.Load(fitted)
	if err != nil {
		t.Fatal(err)
	}
	tl, fl := truth.Latency, fit.Latency
	if fit.LlamaCpp == nil {
		t.Fatalf("the fitted profile has no llamacpp section:\n%s", so.String())
	}
	tc, fc := truth.LlamaCpp, fit.LlamaCpp
	got := map[string][2]time.Duration{
		"c_prefill": {fl.CPrefill.D(), tl.CPrefill.D()}, "beta": {fl.Beta.D(), tl.Beta.D()},
		"c_decode":   {fl.CDecode.D(), tl.CDecode.D()},
		"save_fixed": {fc.SaveFixed.D(), tc.SaveFixed.D()}, "save_per_token": {fc.SavePerToken.D(), tc.SavePerToken.D()},
		"restore_fixed": {fc.RestoreFixed.D(), tc.RestoreFixed.D()}, "restore_per_token": {fc.RestorePerToken.D(), tc.RestorePerToken.D()},
	}
	var misses []string
	for _, name := range []string{"c_prefill", "beta", "c_decode", "save_fixed", "save_per_token", "restore_fixed", "restore_per_token"} {
		g, tg := got[name], llamaTermTargets[name]
		e := float64(g[0])/float64(g[1]) - 1
		t.Logf("%-17s fitted %-9v truth %-9v %+.1f %%", name, g[0], g[1], 100*e)
		switch {
		case e > tg[1] || e < -tg[1]:
			misses = append(misses, name)
		case e > tg[0] || e < -tg[0]:
			targetMissed(t, name, 100*e, 100*tg[0], 100*tg[1], " %")
		}
	}
	// A late step delays one step's tokens and no later ones (the mock
	// keeps absolute deadlines), so the fitted means move by the mean
	// lateness, not by its tail: on this 2-core machine, quiet, the p99
	// reached 3.4–4.8 ms (above β) while every term came out within its
	// target.
	if beta := tl.Beta.D(); late.Mean > beta/10 || late.P50 > beta/10 {
		accuracySkip(t, "machine too starved to measure: during the probe mock steps ran late by mean %v, p50 %v, p99 %v "+
			"(mean or p50 over 10 %% of β %v); rerun on a quieter machine", late.Mean, late.P50, late.P99, beta)
	}
	for _, m := range misses {
		t.Errorf("%s recovered outside its bound of ±%.0f %% (the figures above)", m, 100*llamaTermTargets[m][1])
	}
}
