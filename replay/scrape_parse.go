package replay

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/tracebench/tracebench/dialect"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Names of the bundled mock server's own metrics (the server figures
// come from the dialect's tables, dialect.Metrics).
var (
	// The bundled mock server's step lateness: a summary with 0.5 and
	// 0.99 quantiles and a gauge of the largest lateness, in seconds.
	// Its engine steps are the counter tracebench_mock_steps_total.
	nameStepLate    = "tracebench_mock_step_lateness_seconds"
	nameStepLateMax = "tracebench_mock_step_lateness_max_seconds"
	nameMockSteps   = "tracebench_mock_steps_total"
)

// parseMetrics parses the Prometheus text exposition format into
// ServerMetrics (OK set) with vLLM's names.
func parseMetrics(r io.Reader) (ServerMetrics, error) { return parseMetricsAs(r, nil) }

// parseMetricsAs parses the Prometheus text exposition format into
// ServerMetrics (OK set) with d's names (nil: dialect.Default's).
func parseMetricsAs(r io.Reader, d *dialect.Dialect) (ServerMetrics, error) {
	fams, err := textToFamilies(r)
	if err != nil {
		return ServerMetrics{}, fmt.Errorf("parse metrics: %w", err)
	}
	d = dialect.OrDefault(d)
	f := d.Metrics.Read(func(name string) (float64, int) { return sum(fams[name]) })
	m := ServerMetrics{OK: true, Running: f.Running, Waiting: f.Waiting, KVUsage: f.KVUsage,
		PrefixQueries: f.PrefixQueries, PrefixHits: f.PrefixHits, PromptTokens: f.PromptTokens,
		GenerationTokens: f.GenerationTokens, Preemptions: f.Preemptions, Has: f.Has}
	if f.Has == 0 {
		names := make([]string, 0, len(fams))
		for n := range fams {
			names = append(names, n)
		}
		m.Found = dialect.Prefixes(names)
	}
	if d.Metrics.CacheConfig != "" {
		m.NumGPUBlocks = gpuBlocks(fams[d.Metrics.CacheConfig])
	}
	m.StepLateP50 = quantile(fams[nameStepLate], 0.5)
	m.StepLateP99 = quantile(fams[nameStepLate], 0.99)
	m.StepLateMax = sumFirst(fams, []string{nameStepLateMax})
	m.MockSteps = sumFirst(fams, []string{nameMockSteps})
	_, m.Mock = fams[nameStepLate]
	m.LoRA = loraInfo(fams[nameLoRAInfo])
	return m, nil
}

// textToFamilies runs the expfmt text parser, turning a panic into an
// error: the parser (prometheus/common v0.62) dereferences nil on a line
// that opens with "{" before any metric (found by FuzzScrape; seed
// testdata/fuzz/FuzzScrape/expfmt_brace_line_panic), and a scraped server
// must not be able to crash a Run.
func textToFamilies(r io.Reader) (fams map[string]*dto.MetricFamily, err error) {
	defer func() {
		if p := recover(); p != nil {
			fams, err = nil, fmt.Errorf("malformed exposition text (parser panic: %v)", p)
		}
	}()
	var p expfmt.TextParser
	return p.TextToMetricFamilies(r)
}

// sum returns the sum of a family's samples and how many there are (0
// for an absent family).
func sum(f *dto.MetricFamily) (float64, int) {
	var s float64
	for _, mt := range f.GetMetric() {
		s += finite(value(mt))
	}
	return s, len(f.GetMetric())
}

// sumFirst sums the samples of the first of names present in fams.
func sumFirst(fams map[string]*dto.MetricFamily, names []string) float64 {
	for _, n := range names {
		if f, ok := fams[n]; ok {
			var s float64
			for _, mt := range f.GetMetric() {
				s += finite(value(mt))
			}
			return s
		}
	}
	return 0
}

// value is the sample of a gauge, counter or untyped metric.
func value(mt *dto.Metric) float64 {
	switch {
	case mt.Gauge != nil:
		return mt.Gauge.GetValue()
	case mt.Counter != nil:
		return mt.Counter.GetValue()
	case mt.Untyped != nil:
		return mt.Untyped.GetValue()
	}
	return 0
}

// finite maps NaN and ±Inf (legal in the format) to 0.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// gpuBlocks reads the num_gpu_blocks label of vllm:cache_config_info
// (the largest over label sets; "None" or a non-number counts as 0).
func gpuBlocks(f *dto.MetricFamily) int {
	best := 0
	for _, mt := range f.GetMetric() {
		for _, lp := range mt.GetLabel() {
			if lp.GetName() != "num_gpu_blocks" {
				continue
			}
			if n, err := strconv.Atoi(lp.GetValue()); err == nil && n > best {
				best = n
			}
		}
	}
	return best
}

// quantile returns the largest value of quantile q over a summary's
// label sets (0 when absent).
func quantile(f *dto.MetricFamily, q float64) float64 {
	best := 0.0
	for _, mt := range f.GetMetric() {
		for _, qv := range mt.GetSummary().GetQuantile() {
			if qv.GetQuantile() == q {
				best = max(best, finite(qv.GetValue()))
			}
		}
	}
	return best
}
