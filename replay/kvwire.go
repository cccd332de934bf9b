package replay

import (
	"context"

	"github.com/tracebench/tracebench/policies"
)

// SubscribeKV binds a KV-event Router (precise-prefix) to the backends'
// event streams as a Run does: dialling each of eps, or one listener
// when listen.Endpoint is set; it waits (at most 5 s) until every stream
// is connected or known unreachable. Other Routers need nothing: stop is
// then a no-op. stop ends the subscription and returns the stop-line
// extras and notes a Run writes for the streams; call it once.
func SubscribeKV(ctx context.Context, r policies.Router, backends []string, eps []KVEndpoint,
	listen KVListen) (stop func() (map[string]float64, []string), err error) {
	idx, stopKV, err := subscribeKV(ctx, r, kvWiring{eps: eps, listen: listen, backends: backends})
	if err != nil {
		return nil, err
	}
	waitSubscribed(ctx, idx)
	return func() (map[string]float64, []string) { return KVExtra(idx, stopKV()) }, nil
}
