package client

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracebench/tracebench/results"
)

func TestThinkTags(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   string // per chunk: r reasoning, o output, b both, - neither, R retro+reasoning, X retro+both
	}{
		{"open and close", []string{"<think>", "a", "</think>", "b"}, "rrro"},
		{"one chunk", []string{"<think>a</think>b"}, "b"},
		{"leading space", []string{"\n", " <think>a", "</think>"}, "-rr"},
		{"open tag split", []string{"<thi", "nk>", "a</think>b"}, "-rb"},
		{"close tag split", []string{"<think>a</th", "ink>", "\n\nb"}, "rro"},
		{"close tag split, answer in the same chunk", []string{"<think>a</th", "ink>b"}, "rb"},
		{"no tags", []string{"a", "b"}, "oo"},
		{"not a tag", []string{"<thi", "x"}, "-o"},
		{"not a tag at once", []string{"<thx", "y"}, "oo"},
		{"open tag never closed", []string{"<think>", "a", "b"}, "rrr"},
		{"implicit open (DeepSeek-R1 template)", []string{"a", "b", "</think>", "c"}, "ooRo"},
		{"implicit open, answer with the close", []string{"a", "b</think>c"}, "oX"},
		{"tags after the answer stay output", []string{"a</think>", "<think>b</think>"}, "Ro"},
		{"empty chunks", []string{"", "<think>", "", "a"}, "-r-r"},
		{"close tag of another kind", []string{"<think>a</thinking>", "b"}, "rr"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tg thinkTags
			var got strings.Builder
			for _, c := range tc.chunks {
				got.WriteString(cutCode(tg.feed(c)))
			}
			if got.String() != tc.want {
				t.Fatalf("cuts %q, want %q", got.String(), tc.want)
			}
		})
	}
}

// cutCode is a cut's letter in TestThinkTags.
func cutCode(c tagCut) string {
	switch {
	case c.retro && c.output:
		return "X"
	case c.retro:
		return "R"
	case c.reasoning && c.output:
		return "b"
	case c.reasoning:
		return "r"
	case c.output:
		return "o"
	}
	return "-"
}

// thinkRef is what a whole text holds, by the rule thinkTags applies
// chunk by chunk: reasoning when it opens with <think> (after white
// space) or has a </think>; output after the first </think>, or from
// the start without one (unless all of it opens a tag that never
// completes).
func thinkRef(text string) (reasoning, output bool) {
	rest := strings.TrimLeft(text, " \t\r\n")
	if rest == "" || strings.HasPrefix(thinkOpen, rest) {
		return false, false
	}
	opened := strings.HasPrefix(rest, thinkOpen)
	if opened {
		rest = rest[len(thinkOpen):]
	}
	i := strings.Index(rest, thinkClose)
	switch {
	case i >= 0:
		return true, len(rest) > i+len(thinkClose)
	case opened:
		return true, false
	}
	return false, true
}

// FuzzThinkTags cuts a text into chunks at fuzzed places: however it is
// cut, the chunks hold reasoning and output exactly when the whole text
// does (output counted after the last retro cut), and the splitter keeps
// less than a tag's length of text.
func FuzzThinkTags(f *testing.F) {
	f.Add("<think>a</think>b", []byte{3, 9, 12})
	f.Add("a b</think>c", []byte{1, 6})
	f.Add("  <thi", []byte{4})
	f.Add("<think>x</thinkk>", []byte{10, 11})
	f.Fuzz(func(t *testing.T, text string, cuts []byte) {
		if len(cuts) > 64 {
			cuts = cuts[:64]
		}
		var tg thinkTags
		var reasoning, output bool
		at := 0
		feed := func(s string) {
			c := tg.feed(s)
			if c.retro {
				output = false
			}
			reasoning = reasoning || c.reasoning
			output = output || c.output
			if len(tg.carry) >= len(thinkClose) {
				t.Fatalf("carry %q is a tag's length or more", tg.carry)
			}
		}
		for _, c := range cuts {
			end := min(at+int(c), len(text))
			feed(text[at:end])
			at = end
		}
		feed(text[at:])
		wr, wo := thinkRef(text)
		if reasoning != wr || output != wo {
			t.Fatalf("chunks of %q cut at %v: reasoning %v output %v, want %v %v",
				text, cuts, reasoning, output, wr, wo)
		}
	})
}

// ExampleResult_TTFOT shows the two times of a reasoning request.
func ExampleResult_TTFOT() {
	r := results.Result{Intended: 0, FirstToken: 120e6, FirstOutput: 2400e6, ReasoningTokens: 180}
	fmt.Println(r.TTFT(), r.TTFOT())
	// Output: 120ms 2.4s
}
