package results

import "testing"

// TestAnswerNativeContent: a llama.cpp native completion result's content
// is answer text, as the OpenAI chunks' texts are.
func TestAnswerNativeContent(t *testing.T) {
	var a Answer
	for _, c := range []string{
		`{"index":0,"content":" Paris","tokens":[5],"stop":false,"id_slot":-1,"tokens_predicted":1}`,
		`{"choices":[{"text":" is"}]}`,
		`{"content":"","stop":true,"id_slot":1,"timings":{"cache_n":0}}`,
	} {
		a.AddChunk([]byte(c))
	}
	if got := a.Text(); got != " Paris is" {
		t.Fatalf("answer %q, want %q", got, " Paris is")
	}
}
