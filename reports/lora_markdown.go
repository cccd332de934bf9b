package reports

import (
	"fmt"
	"io"

	"github.com/tracebench/tracebench/internal/textfmt"
	"github.com/tracebench/tracebench/metrics"
)

// writeLoRAView writes which adapter view each Run's lora-affinity
// filter used.
func writeLoRAView(w io.Writer, runs []*metrics.Summary) {
	var rows [][]string
	for _, s := range runs {
		if v := s.LoRAAffinity; v != nil {
			rows = append(rows, []string{mdEscape(s.Name()), v.Source(), textfmt.Count(v.ServerViews), textfmt.Count(v.ClientViews)})
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprint(w, "## LoRA affinity\n\nWhere the `lora-affinity` filter read each backend's adapters: the servers' "+
		"`vllm:lora_requests_info` (running and waiting adapters, max_lora) when scraped, else the client's own "+
		"in-flight requests per adapter.\n\n")
	mdTable(w, []string{"run", "read from", "server views", "client views"}, "llrr", rows)
}
