package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// serverInfo is what a live server says about itself, recorded in the
// run header as config.server so calibrate can pick the cache model.
type serverInfo struct {
	// OwnedBy is /v1/models' owned_by of the first model: "vllm",
	// "llamacpp", "sglang", "tracebench-mock"...
	OwnedBy string `json:"owned_by"`
	// Slots is llama.cpp's number of slots (/props total_slots, -np).
	Slots int `json:"slots,omitempty"`
	// SlotContext is llama.cpp's context per slot in tokens (/props
	// default_generation_settings.n_ctx, i.e. -c / -np).
	SlotContext int `json:"slot_context,omitempty"`
}

// serverInfoTimeout bounds each of the two requests of fetchServerInfo.
const serverInfoTimeout = 2 * time.Second

// fetchServerInfo asks base's /v1/models who serves it and, for
// llama.cpp, /props for its slots. It returns nil when /v1/models does
// not answer; the run goes on without the information.
func fetchServerInfo(ctx context.Context, base string) *serverInfo {
	var models struct {
		Data []struct {
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if err := getJSON(ctx, base, "/v1/models", &models); err != nil || len(models.Data) == 0 {
		return nil
	}
	info := &serverInfo{OwnedBy: models.Data[0].OwnedBy}
	if info.OwnedBy != "llamacpp" {
		return info
	}
	var props struct {
		TotalSlots int `json:"total_slots"`
		Settings   struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
	}
	if getJSON(ctx, base, "/props", &props) == nil {
		info.Slots, info.SlotContext = props.TotalSlots, props.Settings.NCtx
	}
	return info
}

// getJSON decodes the JSON body of GET base+path into v.
func getJSON(ctx context.Context, base, path string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, serverInfoTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// LlamaCppSlots returns the number of slots (-np) of the llama.cpp server
// at base, or 0 when base is not llama.cpp or does not say.
func LlamaCppSlots(ctx context.Context, base string) int {
	if info := fetchServerInfo(ctx, base); info != nil && info.OwnedBy == "llamacpp" {
		return info.Slots
	}
	return 0
}
