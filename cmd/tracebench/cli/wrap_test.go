package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapLine(t *testing.T) {
	long := "verdict: pick prefix-cache: sustained rate 57.6 req/s, +7.76 req/s over chwbl (95 % CI +0.432 to +15.1 " +
		"req/s over 5 seeds); prefix-cache is ahead of round-robin by +16.4 req/s (95 % CI +7.51 to +25.3 req/s)"
	tests := []struct {
		name, in string
		width    int
		lines    int
	}{
		{"short stays", "stage 1, capacity", 120, 1},
		{"long breaks", long, 120, 2},
		{"indented long breaks", "  " + long, 60, 4},
		{"one long word stays whole", strings.Repeat("x", 130), 120, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapLine(tc.in, tc.width)
			lines := strings.Split(got, "\n")
			if len(lines) != tc.lines {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), tc.lines, got)
			}
			for _, l := range lines {
				if utf8.RuneCountInString(l) > tc.width && strings.Contains(l, " ") {
					t.Errorf("line of %d columns > %d: %q", utf8.RuneCountInString(l), tc.width, l)
				}
			}
			if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(tc.in), " ") {
				t.Errorf("words changed:\n%s\nwant\n%s", got, tc.in)
			}
		})
	}
}
