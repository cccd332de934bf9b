package cli

import (
	"io"
	"strings"
	"unicode/utf8"
)

// termWidth is the width, in columns, bench's terminal output keeps to.
const termWidth = 120

// wrapWriter writes text wrapped at width columns: a longer line breaks
// at its last space that fits, its continuations indented four columns
// past the line's own indent. A word longer than the width stays whole.
type wrapWriter struct {
	w     io.Writer
	width int
}

// Write wraps p, which holds whole lines, and writes it.
func (ww wrapWriter) Write(p []byte) (int, error) {
	var sb strings.Builder
	for i, line := range strings.Split(string(p), "\n") {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(wrapLine(line, ww.width))
	}
	if _, err := io.WriteString(ww.w, sb.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// wrapLine breaks one line at spaces so that no piece passes width
// columns where a space allows it.
func wrapLine(line string, width int) string {
	if utf8.RuneCountInString(line) <= width {
		return line
	}
	indent := strings.Repeat(" ", len(line)-len(strings.TrimLeft(line, " "))+4)
	var out []string
	cur := line
	for utf8.RuneCountInString(cur) > width {
		cut := lastSpaceWithin(cur, width)
		if cut <= len(indent) {
			break
		}
		out = append(out, strings.TrimRight(cur[:cut], " "))
		cur = indent + strings.TrimLeft(cur[cut:], " ")
	}
	return strings.Join(append(out, cur), "\n")
}

// lastSpaceWithin is the byte offset of the last space among s's first
// width runes (-1 when there is none).
func lastSpaceWithin(s string, width int) int {
	last, n := -1, 0
	for i, r := range s {
		if n >= width {
			break
		}
		if r == ' ' {
			last = i
		}
		n++
	}
	return last
}
