package metrics

import (
	"fmt"

	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/results"
)

// LoRAView says where the lora-affinity filter read each Backend's
// adapters, counted over its decisions (one view per Backend considered
// per decision).
type LoRAView struct {
	// ServerViews were read from the server's vllm:lora_requests_info
	// (--scrape on and the server exposes it).
	ServerViews int64 `json:"server_views"`
	// ClientViews used the client's own in-flight requests per adapter.
	ClientViews int64 `json:"client_views"`
}

// Source names what the views were read from.
func (v LoRAView) Source() string {
	switch {
	case v.ServerViews == 0 && v.ClientViews == 0:
		return "no decision (no request with an adapter reached the filter)"
	case v.ClientViews == 0:
		return "server metrics (vllm:lora_requests_info)"
	case v.ServerViews == 0:
		return "client in-flight counts (no scraped vllm:lora_requests_info)"
	}
	return fmt.Sprintf("both: %.1f %% server metrics, the rest client counts (decisions before the first scrape, after a failed one, or for a server without vllm:lora_requests_info)",
		100*float64(v.ServerViews)/float64(v.ServerViews+v.ClientViews))
}

// loraView reads the filter's figures from the stop line (nil when the
// Run had no lora-affinity filter).
func loraView(stop *results.Stop) *LoRAView {
	if stop == nil {
		return nil
	}
	s, okS := stop.Extra[policies.ExtraLoRAServerViews]
	c, okC := stop.Extra[policies.ExtraLoRAClientViews]
	if !okS && !okC {
		return nil
	}
	return &LoRAView{ServerViews: int64(s), ClientViews: int64(c)}
}
