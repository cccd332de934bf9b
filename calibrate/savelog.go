package calibrate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// SaveLog is what one llama-server's log says of its host prompt cache:
// one entry per update of the cache when the server took a slot for a
// task (server_context::get_available_slot in tools/server/server.cpp,
// b7099: "updating prompt cache" ... "prompt cache update took N ms"),
// in the server's order. The server reports its saves nowhere else.
type SaveLog struct {
	// Name is the file read, for messages.
	Name string
	// Updates are the cache updates in the log's order.
	Updates []CacheUpdate
}

// CacheUpdate is one update of llama-server's host prompt cache.
type CacheUpdate struct {
	// Saved is the tokens of the slot's prompt the server set out to
	// save ("saving prompt with length N"); 0 when it saved none.
	Saved int
	// Held says the slot's prompt was already in the cache ("prompt is
	// already in the cache, skipping"): the save copied nothing.
	Held bool
	// Restored says a saved prompt was loaded into the slot ("found
	// better prompt").
	Restored bool
	// Took is the update's wall time as the server measured it
	// (milliseconds with two decimals in the log).
	Took time.Duration
}

// The log lines a SaveLog reads; every other line is passed over.
const (
	logUpdateStart = "updating prompt cache"
	logSaving      = "saving prompt with length "
	logHeld        = "prompt is already in the cache, skipping"
	logRestored    = "found better prompt"
	logTook        = "prompt cache update took "
)

// maxLogLine is the longest log line read (bytes); a longer one is an
// error naming its line.
const maxLogLine = 1 << 20

// ReadSaveLog reads llama-server's log (its standard error, as written
// with the default verbosity) from r; name names it in errors. Lines
// other than the prompt cache's are passed over, so a whole log can be
// given. An update the log does not finish (a log cut mid-update) is
// dropped. A cache line whose number does not parse is an error naming
// the file, the line and the field.
func ReadSaveLog(r io.Reader, name string) (SaveLog, error) {
	out := SaveLog{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxLogLine)
	var cur *CacheUpdate
	bad := func(n int, field, v string) error {
		return fmt.Errorf("%s:%d: %s: %q is not a number", name, n, field, v)
	}
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.Contains(line, logUpdateStart):
			cur = &CacheUpdate{}
		case cur == nil:
			continue // a cache line outside an update: not one of its
		case strings.Contains(line, logSaving):
			v := firstField(line[strings.Index(line, logSaving)+len(logSaving):])
			tok, err := strconv.Atoi(v)
			if err != nil || tok < 0 {
				return out, bad(n, "saving prompt with length", v)
			}
			cur.Saved = tok
		case strings.Contains(line, logHeld):
			cur.Held = true
		case strings.Contains(line, logRestored):
			cur.Restored = true
		case strings.Contains(line, logTook):
			v := firstField(line[strings.Index(line, logTook)+len(logTook):])
			ms, err := strconv.ParseFloat(v, 64)
			if err != nil || !(ms >= 0 && ms <= 1e9) { // NaN too
				return out, bad(n, "prompt cache update took", v)
			}
			cur.Took = time.Duration(ms * float64(time.Millisecond))
			out.Updates = append(out.Updates, *cur)
			cur = nil
		}
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("%s: read: %w", name, err)
	}
	return out, nil
}

// firstField is s up to its first space or comma.
func firstField(s string) string {
	if i := strings.IndexAny(s, " ,"); i >= 0 {
		return s[:i]
	}
	return s
}

// Copied reports whether the update copied a slot's prompt to host
// memory.
func (u CacheUpdate) Copied() bool { return u.Saved > 0 && !u.Held }

// Saves is how many of the log's updates copied a slot's prompt.
func (l SaveLog) Saves() int {
	n := 0
	for _, u := range l.Updates {
		if u.Copied() {
			n++
		}
	}
	return n
}
