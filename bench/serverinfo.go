package bench

import (
	"context"
	"net/http"
	"time"

	"github.com/tracebench/tracebench/dialect"
)

// serverInfoTimeout bounds each request of fetchServerInfo.
const serverInfoTimeout = 2 * time.Second

// fetchServerInfo asks base who serves it and what its dialect says of
// itself (dialect.Describe), nil when it does not answer.
func fetchServerInfo(ctx context.Context, base string) *dialect.ServerInfo {
	return dialect.Describe(ctx, &http.Client{Timeout: serverInfoTimeout}, base)
}

// LlamaCppSlots returns the number of slots (-np) of the server at base,
// or 0 when it keeps no slots (not llama.cpp) or does not say.
func LlamaCppSlots(ctx context.Context, base string) int {
	if info := fetchServerInfo(ctx, base); info != nil {
		return info.Slots
	}
	return 0
}
