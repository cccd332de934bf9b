package flags

import (
	"time"

	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/metrics"
)

// SLO holds the flags that set the SLA, the measured window and the
// price of reports.
type SLO struct {
	TTFT, TTFOT, TPOT, E2E time.Duration
	File                   string
	Warmup                 time.Duration
	// Cost is --cost-per-hour, every backend's price in $/hour ("": none).
	Cost string
}

// Bind binds the --slo-*, --warmup and --cost-per-hour flags to s.
func (s *SLO) Bind(fs *pflag.FlagSet) {
	fs.DurationVar(&s.TTFT, "slo-ttft", 2*time.Second, "SLA bound on TTFT (from intended arrival)")
	fs.DurationVar(&s.TTFOT, "slo-ttfot", 0, "SLA bound on the time to first output token, after a reasoning model's reasoning (0 = none)")
	fs.DurationVar(&s.TPOT, "slo-tpot", 100*time.Millisecond, "SLA bound on TPOT")
	fs.DurationVar(&s.E2E, "slo-e2e", 0, "SLA bound on end-to-end latency (0 = none)")
	fs.StringVar(&s.File, "slo-file", "", "YAML file of per-user SLOs")
	fs.DurationVar(&s.Warmup, "warmup", 0, "leave out requests that arrive in the first D of the run")
	fs.StringVar(&s.Cost, "cost-per-hour", "", "price of each backend in $/hour, for cost per token (default: targets file or profile)")
}

// Options builds the report options.
func (s *SLO) Options() (metrics.Options, error) {
	o := metrics.DefaultOptions()
	for _, f := range []struct {
		name string
		d    time.Duration
	}{{"--slo-ttft", s.TTFT}, {"--slo-ttfot", s.TTFOT}, {"--slo-tpot", s.TPOT}, {"--slo-e2e", s.E2E}, {"--warmup", s.Warmup}} {
		if f.d < 0 {
			return o, usagef("%s: negative duration %s", f.name, f.d)
		}
	}
	o.SLO.TTFT, o.SLO.TTFOT, o.SLO.TPOT, o.SLO.E2E = s.TTFT, s.TTFOT, s.TPOT, s.E2E
	o.Warmup = s.Warmup
	price, err := Price(s.Cost)
	if err != nil {
		return o, err
	}
	o.Price = price
	if s.File != "" {
		per, err := metrics.LoadSLOFile(s.File)
		if err != nil {
			return o, usagef("--slo-file: %v", err)
		}
		o.SLO.PerUser = per
	}
	return o, nil
}

// Price parses --cost-per-hour ("" : no price).
func Price(text string) (metrics.Price, error) {
	if text == "" {
		return metrics.Price{}, nil
	}
	v, err := metrics.ParsePrice(text)
	if err != nil {
		return metrics.Price{}, usagef("--cost-per-hour: %v", err)
	}
	return metrics.Price{PerHour: v, Source: "--cost-per-hour"}, nil
}
