package reports

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/results"
)

// requestColumns are the per-request CSV columns, in order (stable;
// documented in docs/reports.md). Times are milliseconds from the start
// of the Run; latencies are milliseconds.
var requestColumns = []string{"policy", "seq", "id", "user", "session", "backend",
	"intended_ms", "released_ms", "sent_ms", "first_token_ms", "done_ms",
	"ttft_ms", "server_ttft_ms", "tpot_ms", "e2e_ms", "queue_wait_ms", "schedule_lag_ms", "tbt_max_ms",
	"chunks", "input_tokens", "output_tokens", "prompt_tokens", "completion_tokens", "cached_tokens",
	"predicted_hit_tokens", "status", "err_class", "sla_met", "in_window",
	"prefill_backend", "prefill_ms", "transfer_ms", "first_decode_ms", "prefill_err_class",
	"first_output_ms", "ttfot_ms", "reasoning_tokens"}

// pdColumn is the index of the first prefill/decode column.
var pdColumn = slices.Index(requestColumns, "prefill_backend")

// RequestCSV writes one CSV row per Result, streaming.
type RequestCSV struct {
	cw  *csv.Writer
	o   metrics.Options
	row []string
}

// NewRequestCSV writes the header row to w and returns the writer. o
// decides the sla_met and in_window (after the warm-up cut) columns.
func NewRequestCSV(w io.Writer, o metrics.Options) (*RequestCSV, error) {
	c := &RequestCSV{cw: csv.NewWriter(w), o: o, row: make([]string, len(requestColumns))}
	if err := c.cw.Write(requestColumns); err != nil {
		return nil, fmt.Errorf("write request csv: %w", err)
	}
	return c, nil
}

// optMS formats d in milliseconds, empty when unset (0).
func optMS(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return ms(d)
}

// Write appends the row of r, labelled with policy.
func (c *RequestCSV) Write(policy string, r *results.Result) error {
	itoa := strconv.Itoa
	ttft, sttft, tpot := "", "", ""
	if r.FirstToken > 0 {
		ttft, sttft = ms(r.TTFT()), ms(r.ServerTTFT())
	}
	if r.TPOT() > 0 {
		tpot = ms(r.TPOT())
	}
	copy(c.row, []string{policy, strconv.FormatInt(r.Seq, 10), r.ID, r.User, r.Session, itoa(r.Backend),
		ms(r.Intended), ms(r.Released), optMS(r.Sent), optMS(r.FirstToken), ms(r.Done),
		ttft, sttft, tpot, ms(r.E2E()), ms(r.QueueWait()), ms(r.ScheduleLag()), optMS(r.TBTMax),
		itoa(r.Chunks), itoa(r.InputTokens), itoa(r.OutputTokens), itoa(r.PromptTokens), itoa(r.CompletionTokens),
		itoa(r.CachedTokens), itoa(r.PredictedHitTokens), itoa(r.Status), r.ErrClass,
		strconv.FormatBool(metrics.MeetsSLO(c.o.SLO, r)), strconv.FormatBool(r.Intended >= c.o.Warmup)})
	pdColumns(c.row[pdColumn:pdColumn+5], r)
	copy(c.row[pdColumn+5:], []string{optMS(r.FirstOutput), ttfotCell(r), itoa(r.ReasoningTokens)})
	if err := c.cw.Write(c.row); err != nil {
		return fmt.Errorf("write request csv: %w", err)
	}
	return nil
}

// Flush writes buffered rows out.
func (c *RequestCSV) Flush() error {
	c.cw.Flush()
	if err := c.cw.Error(); err != nil {
		return fmt.Errorf("write request csv: %w", err)
	}
	return nil
}

// WriteRequestsCSV streams the results files at paths into one
// per-request CSV, each row labelled with its Run's policy.
func WriteRequestsCSV(w io.Writer, o metrics.Options, paths ...string) error {
	c, err := NewRequestCSV(w, o)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := c.copyFile(p); err != nil {
			return err
		}
	}
	return c.Flush()
}

func (c *RequestCSV) copyFile(path string) error {
	var name string
	return results.EachResult(path, func(h results.Header) error {
		name = (&metrics.Summary{Header: h}).Name()
		return nil
	}, func(r *results.Result) error { return c.Write(name, r) })
}

// pdColumns fills the prefill/decode columns of r's row: empty when r
// was not disaggregated or a figure is unknown.
func pdColumns(row []string, r *results.Result) {
	clear(row)
	if r.PD == nil {
		return
	}
	row[0], row[4] = strconv.Itoa(r.PD.Backend), r.PD.ErrClass
	for i, f := range []func() (time.Duration, bool){r.PrefillTime, r.TransferTime, r.FirstDecodeTime} {
		if d, ok := f(); ok {
			row[1+i] = ms(d)
		}
	}
}
