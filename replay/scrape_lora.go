package replay

import (
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

// nameLoRAInfo is vLLM's LoRA gauge: one sample whose labels list the
// adapters of running and of waiting requests (comma-separated) and
// max_lora, and whose value is the time it was set (seconds since the
// epoch). Source: vLLM's metrics (vllm/v1/metrics/loggers.py) and the
// Gateway API Inference Extension's model server protocol, which reads it
// for LoRA affinity.
const nameLoRAInfo = "vllm:lora_requests_info"

// LoRAInfo is one server's vllm:lora_requests_info.
type LoRAInfo struct {
	// MaxLoRA is the max_lora label: adapters a batch may hold (0 when
	// absent or not a positive number).
	MaxLoRA int
	// Running and Waiting are the adapters of running and of waiting
	// requests (running_lora_adapters, waiting_lora_adapters).
	Running, Waiting []string
}

// loraInfo reads the newest sample (largest value) of the family; nil
// when the server does not expose it.
func loraInfo(f *dto.MetricFamily) *LoRAInfo {
	if f == nil {
		return nil
	}
	var best *dto.Metric
	var bestV float64
	for _, m := range f.GetMetric() {
		v := m.GetGauge().GetValue() + m.GetUntyped().GetValue()
		if best == nil || v > bestV {
			best, bestV = m, v
		}
	}
	if best == nil {
		return nil
	}
	info := &LoRAInfo{}
	for _, l := range best.GetLabel() {
		switch l.GetName() {
		case "max_lora":
			if n, err := strconv.Atoi(strings.TrimSpace(l.GetValue())); err == nil && n > 0 {
				info.MaxLoRA = n
			}
		case "running_lora_adapters":
			info.Running = splitAdapters(l.GetValue())
		case "waiting_lora_adapters":
			info.Waiting = splitAdapters(l.GetValue())
		}
	}
	return info
}

// splitAdapters splits a comma-separated adapter list, dropping blanks.
func splitAdapters(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
