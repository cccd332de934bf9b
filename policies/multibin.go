package policies

import (
	"fmt"
	"github.com/tracebench/tracebench/traces"
	"math/rand/v2"
	"time"
)

// Modes and bin selections of the multi-bin Queue.
const (
	mbStatic       = "static"
	mbContinuous   = "continuous"
	mbRoundRobin   = "round-robin"
	mbLongestQueue = "longest-queue"
)

// multiBinSpec documents the multi-bin Queue. Defaults come from the
// reference configuration of a multi-bin batching simulator's specification ( RTX 4080 12 GB, Qwen3
// 1.7B FP16, K_BINS 4, B_MIN 1, B_MAX 128, MAX_CANDIDATES 128, D_SLA 10 ms
// of decode TBT, LATENCY_EPSILON 5 ms, round-robin bins).
var multiBinSpec = Spec{
	Name: "multi-bin",
	Doc: "multi-bin dynamic batching: requests binned by predicted output length (equal-mass bins), " +
		"a free backend takes a batch from one bin sized by min(b_mem, b_SLA); per-bin SLA controllers fed by measured decode TBT",
	Needs:         []string{"in-flight", "output-length"},
	Source:        "Guldogan, Kunde, Lee, Pedarsani, Multi-Bin Batching for Increasing LLM Inference Throughput (arXiv:2412.04504); Algorithms 1-7 of a multi-bin dynamic batching specification built on it",
	PicksBackends: true,
	Params: []ParamSpec{
		{Name: "k", Kind: kInt, Default: traces.ParamInt(4), Env: "K_BINS", Doc: "number of bins K (ignored when boundaries is set)"},
		{Name: "mode", Kind: kString, Default: traces.ParamString(mbStatic), Doc: "static: a backend takes its next batch only when it has no request in flight; continuous: top a backend up to b_target from one bin"},
		{Name: "bin_select", Kind: kString, Default: traces.ParamString(mbRoundRobin), Doc: "Algorithm 5 bin choice: round-robin or longest-queue"},
		{Name: "predictor", Kind: kString, Default: traces.ParamString(predOracle), Doc: "output-length predictor: oracle (the trace's), noisy (log-normal error, seeded) or bucket (right bin with probability bucket_p, else a neighbour)"},
		{Name: "noise_sigma", Kind: kFloat, Default: traces.ParamFloat(0.5), Doc: "noisy predictor: σ of the log-normal multiplicative error"},
		{Name: "bucket_p", Kind: kFloat, Default: traces.ParamFloat(0.8), Doc: "bucket predictor: probability of predicting the right bin"},
		{Name: "boundaries", Kind: kString, Default: traces.ParamString("auto"), Doc: "bin edges in tokens: auto = equal-mass edges (Algorithm 6) from the first warmup_requests predicted lengths; or K-1 increasing cuts (\"42,80,167\" gives [0,42) [42,80) [80,167) [167,10000)), which set K"},
		{Name: "warmup_requests", Kind: kInt, Default: traces.ParamInt(200), Doc: "predicted lengths collected before the equal-mass edges are computed; until then all requests share one bin"},
		{Name: "m_max_gb", Kind: kFloat, Default: traces.ParamFloat(12), Env: "M_MAX_GB", Doc: "GPU memory per backend, GB"},
		{Name: "m_model_gb", Kind: kFloat, Default: traces.ParamFloat(4), Env: "M_MODEL_GB", Doc: "model weights per backend, GB"},
		{Name: "kv_mem_per_token_gb", Kind: kFloat, Default: traces.ParamFloat(0.0001875), Env: "KV_MEM_PER_TOKEN_GB", Doc: "KV cache per token, GB"},
		{Name: "b_min", Kind: kInt, Default: traces.ParamInt(1), Env: "B_MIN", Doc: "smallest batch size"},
		{Name: "b_max", Kind: kInt, Default: traces.ParamInt(128), Env: "B_MAX", Doc: "largest batch size"},
		{Name: "bin_b_max", Kind: kString, Default: traces.ParamString("none"), Env: "BIN_B_MAX", Doc: "per-bin batch limits, K comma-separated integers, or none"},
		{Name: "d_sla", Kind: kString, Default: traces.ParamString("0.010"), Env: "D_SLA", Doc: "decode TBT target, seconds (or a duration like 10ms)"},
		{Name: "eps_d", Kind: kString, Default: traces.ParamString("0.005"), Env: "EPS_D", Doc: "decode TBT tolerance band, seconds (or a duration)"},
		{Name: "max_candidates", Kind: kInt, Default: traces.ParamInt(128), Env: "MAX_CANDIDATES", Doc: "most requests Algorithm 5 takes from a bin per batch"},
		{Name: "event_interval", Kind: kString, Default: traces.ParamString("0"), Doc: "least run time between two state events, seconds or a duration (0: every change)"},
	},
}

func init() {
	RegisterQueue(multiBinSpec, func(p Params, rng *rand.Rand) (Queue, error) { return newMultiBin(p, rng) })
}

// mbOptions are the parsed parameters beyond mbConfig.
type mbOptions struct {
	k, warmup       int
	mode, selection string
	edges           []int
	pred            lengthPredictor
	eventInterval   time.Duration
}

// parseMultiBin validates p.
func parseMultiBin(p Params) (mbConfig, mbOptions, error) {
	var c mbConfig
	var o mbOptions
	var err error
	q := qparams(p)
	steps := []func() error{
		func() (e error) { o.k, e = p.Int("k", 1, 64); return },
		func() (e error) { o.mode, e = p.OneOf("mode", mbStatic, mbContinuous); return },
		func() (e error) { o.selection, e = p.OneOf("bin_select", mbRoundRobin, mbLongestQueue); return },
		func() (e error) { o.pred.kind, e = p.OneOf("predictor", predOracle, predNoisy, predBucket); return },
		func() (e error) { o.pred.sigma, e = p.Float("noise_sigma", 0, 10); return },
		func() (e error) { o.pred.p, e = p.Float("bucket_p", 0, 1); return },
		func() (e error) { o.edges, e = q.intList("boundaries", 1, mbLastBinHi-1); return },
		func() (e error) { o.warmup, e = p.Int("warmup_requests", 1, 10_000_000); return },
		func() (e error) { c.MMaxGB, e = p.Float("m_max_gb", 1e-9, 1e6); return },
		func() (e error) { c.MModelGB, e = p.Float("m_model_gb", 0, 1e6); return },
		func() (e error) { c.KVMemPerTokenGB, e = p.Float("kv_mem_per_token_gb", 1e-12, 1e3); return },
		func() (e error) { c.BMin, e = p.Int("b_min", 1, 1<<20); return },
		func() (e error) { c.BMax, e = p.Int("b_max", 1, 1<<20); return },
		func() (e error) { c.BinBMax, e = q.intList("bin_b_max", 1, 1<<20); return },
		func() (e error) { c.DSLA, e = q.seconds("d_sla", time.Microsecond, time.Hour); return },
		func() (e error) { c.EpsD, e = q.seconds("eps_d", 0, time.Hour); return },
		func() (e error) { c.MaxCandidates, e = p.Int("max_candidates", 1, 1<<20); return },
		func() (e error) { o.eventInterval, e = q.seconds("event_interval", 0, 24*time.Hour); return },
	}
	for _, s := range steps {
		if err = s(); err != nil {
			return c, o, err
		}
	}
	return c, o, checkMultiBin(&c, &o)
}

// checkMultiBin validates relations between parameters.
func checkMultiBin(c *mbConfig, o *mbOptions) error {
	if c.MModelGB >= c.MMaxGB {
		return fmt.Errorf("parameter m_model_gb: %g GB leaves no KV memory under m_max_gb %g GB", c.MModelGB, c.MMaxGB)
	}
	if c.BMax < c.BMin {
		return fmt.Errorf("parameter b_max: %d is below b_min %d", c.BMax, c.BMin)
	}
	for i := 1; i < len(o.edges); i++ {
		if o.edges[i] <= o.edges[i-1] {
			return fmt.Errorf("parameter boundaries: item %d (%d) is not above item %d (%d)", i+1, o.edges[i], i, o.edges[i-1])
		}
	}
	if len(o.edges) > 0 {
		o.k = len(o.edges) + 1
	}
	if len(c.BinBMax) > 0 && len(c.BinBMax) != o.k {
		return fmt.Errorf("parameter bin_b_max: %d limits given for %d bins", len(c.BinBMax), o.k)
	}
	if o.warmup < o.k {
		return fmt.Errorf("parameter warmup_requests: %d is fewer than the %d bins", o.warmup, o.k)
	}
	return nil
}
