package dialect

import (
	"context"
	"fmt"
	"net/http"
)

// flushFunc empties the prefix cache of the server at base.
type flushFunc func(ctx context.Context, hc *http.Client, base string) error

// Flush empties the prefix cache of the server at base, or returns one
// line naming the server and why it could not (no way in this dialect,
// the server refused).
func (d *Dialect) Flush(ctx context.Context, hc *http.Client, base string) error {
	if !d.CanFlush() {
		return fmt.Errorf("%s: cannot flush the prefix cache: %s", Base(base), d.flushNote)
	}
	if err := d.flush(ctx, hc, base); err != nil {
		return fmt.Errorf("%s: flush refused: %w (%s)", Base(base), err, d.flushNote)
	}
	return nil
}

// postFlush returns a flush that POSTs to path.
func postFlush(path string) flushFunc {
	return func(ctx context.Context, hc *http.Client, base string) error {
		_, err := post(ctx, hc, base, path, nil)
		return err
	}
}
