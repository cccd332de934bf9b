package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tracebench/tracebench/dialect"
)

// serverInfoTimeout bounds each of the two requests of fetchServerInfo.
const serverInfoTimeout = 2 * time.Second

// fetchServerInfo asks base's /v1/models who serves it and, for
// llama.cpp, /props for its slots. It returns nil when /v1/models does
// not answer; the run goes on without the information.
func fetchServerInfo(ctx context.Context, base string) *dialect.ServerInfo {
	var models struct {
		Data []struct {
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if err := getJSON(ctx, base, "/v1/models", &models); err != nil || len(models.Data) == 0 {
		return nil
	}
	info := &dialect.ServerInfo{OwnedBy: models.Data[0].OwnedBy}
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
