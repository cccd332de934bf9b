package replay_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkPacing replays one second of short non-streaming requests at
// constant rates of 1,000 to 4,000 req/s against a loopback server that
// answers at once, which isolates the client, and reports what
// BenchmarkPacingMock does. The documented command driving the bundled
// mock is in docs/replay.md.
func BenchmarkPacing(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"index":0,"text":"x","finish_reason":"length"}],"usage":{"prompt_tokens":8,"completion_tokens":1}}`)
	}))
	defer srv.Close()
	benchPacing(b, []int{1000, 2000, 4000}, func(*testing.B) []string { return []string{srv.URL} })
}
