package replay_test

import (
	"context"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver"
)

// startMockWith runs one bundled mock replica on loopback with o.
func startMockWith(t *testing.T, o mockserver.Options) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	f, err := mockserver.StartFleet(ctx, mockserver.FleetConfig{Replicas: 1, Options: o})
	if err != nil {
		cancel()
		t.Fatalf("start mock: %v", err)
	}
	t.Cleanup(func() { _ = f.Close(); cancel() })
	return f.URLs()[0]
}
