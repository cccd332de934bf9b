package dialect

import (
	"context"
	"encoding/json"
	"net/http"
)

// ServerInfo is what a live server says about itself, recorded in the
// run header's config.server so calibration can pick the cache model.
type ServerInfo struct {
	// OwnedBy is /v1/models' owned_by of the first model: "vllm",
	// "llamacpp", "sglang", "tracebench-mock"...
	OwnedBy string `json:"owned_by"`
	// Slots is the number of slots of a server that keeps one prompt per
	// slot (llama.cpp: /props total_slots, -np; 0: not said).
	Slots int `json:"slots,omitempty"`
	// SlotContext is the context per slot in tokens (llama.cpp: /props
	// default_generation_settings.n_ctx, i.e. -c / -np; 0: not said).
	SlotContext int `json:"slot_context,omitempty"`
}

// Describe asks the server at base who serves it (GET /v1/models) and,
// when its owner is a dialect with more to say (llama.cpp's slots, from
// GET /props), that too. It returns nil when /v1/models does not answer;
// a run goes on without the information.
func Describe(ctx context.Context, hc *http.Client, base string) *ServerInfo {
	var models struct {
		Data []struct {
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	b, _, err := get(ctx, hc, base, "/v1/models")
	if err != nil || json.Unmarshal(b, &models) != nil || len(models.Data) == 0 {
		return nil
	}
	info := &ServerInfo{OwnedBy: models.Data[0].OwnedBy}
	if d, err := Lookup(info.OwnedBy); err == nil && d.describe != nil {
		d.describe(ctx, hc, base, info)
	}
	return info
}
