package cli

import (
	"context"
	"testing"
	"time"

	"github.com/tracebench/tracebench/mockserver"
)

// startTestFleet starts an in-process mock fleet of 2 replicas on
// 127.0.0.1 at time scale 0.05 speaking dialect ("" for the default),
// closed when the test ends and stopped after a minute at most.
func startTestFleet(t *testing.T, dialect string) *mockserver.Fleet {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	f, err := mockserver.StartFleet(ctx, mockserver.FleetConfig{Replicas: 2, Host: "127.0.0.1",
		Options: mockserver.Options{TimeScale: 0.05, Dialect: dialect}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}
