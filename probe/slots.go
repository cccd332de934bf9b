package probe

import (
	"context"
	"net/http"
	"time"

	"github.com/tracebench/tracebench/dialect"
)

// slotsTimeout bounds the request of LlamaCppSlots.
const slotsTimeout = 2 * time.Second

// LlamaCppSlots returns the number of slots (-np) of the server at base,
// or 0 when it keeps no slots (not llama.cpp) or does not say.
func LlamaCppSlots(ctx context.Context, base string) int {
	if info := dialect.Describe(ctx, &http.Client{Timeout: slotsTimeout}, base); info != nil {
		return info.Slots
	}
	return 0
}
