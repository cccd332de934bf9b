package traces

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// csvColumns describes a CSV trace format: its required and optional
// header names and how one row becomes a Request.
type csvColumns struct {
	required []string
	optional []string
	// row fills r from the row; col returns a column's value by header
	// name ("" when an optional column is absent).
	row func(col func(string) string, lineNo int, r *Request) error
}

// csvReader reads a CSV trace with a header line, one Request per row.
type csvReader struct {
	cr    *csv.Reader
	spec  csvColumns
	index map[string]int
	rec   []string
	line  int
}

func newCSV(br *bufio.Reader, spec csvColumns) *csvReader {
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	return &csvReader{cr: cr, spec: spec}
}

func (c *csvReader) lineNo() int { return c.line }

// header reads the header line and maps the column names.
func (c *csvReader) header() error {
	rec, err := c.cr.Read()
	if err != nil {
		if err == io.EOF {
			return fmt.Errorf("empty CSV trace: no header line")
		}
		return fmt.Errorf("CSV header: %w (is ReadOptions.Format right?)", err)
	}
	c.index = map[string]int{}
	for i, name := range rec {
		c.index[strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))] = i
	}
	for _, name := range c.spec.required {
		if _, ok := c.index[name]; !ok {
			return fmt.Errorf("line 1 field %s: column missing from header %q (is ReadOptions.Format right?)", name, strings.Join(rec, ","))
		}
	}
	return nil
}

func (c *csvReader) next() (Request, error) {
	if c.index == nil {
		if err := c.header(); err != nil {
			return Request{}, err
		}
	}
	rec, err := c.cr.Read()
	if err == io.EOF {
		return Request{}, io.EOF
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			c.line = pe.Line
			return Request{}, &ParseError{Line: pe.Line, Err: pe.Err}
		}
		return Request{}, err
	}
	c.line, _ = c.cr.FieldPos(0)
	c.rec = rec
	var r Request
	if err := c.spec.row(c.col, c.line, &r); err != nil {
		return Request{}, atLine(err, c.line)
	}
	return r, nil
}

// col returns the named column of the current row, or "" when absent.
func (c *csvReader) col(name string) string {
	i, ok := c.index[name]
	if !ok || i >= len(c.rec) {
		return ""
	}
	return strings.TrimSpace(c.rec[i])
}

// csvInt parses a token count column, an integer in [0, MaxTokens] (a
// float with no fraction is accepted: some exports write "12.0").
func csvInt(col func(string) string, name string) (int, error) {
	s := col(name)
	if s == "" {
		return 0, fieldErr(name, "missing")
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != math.Trunc(f) {
			return 0, fieldErr(name, "want an integer, got %q", s)
		}
		if math.Abs(f) > MaxTokens {
			return 0, fieldErr(name, "%s tokens, above the limit of %d", s, MaxTokens)
		}
		n = int(f)
	}
	return n, tokenCount(name, n)
}

// azureLayout parses Azure's wall-clock times: the 2023 release writes
// "2023-11-16 18:17:03.9799600" (7 fractional digits), the 2024 release
// "2024-05-10 00:00:00.009930+00:00" (6 digits, sometimes none, and a UTC
// offset). Any digit count is accepted; a time without an offset is UTC.
const (
	azureLayout   = "2006-01-02 15:04:05.999999999"
	azureLayoutTZ = "2006-01-02 15:04:05.999999999Z07:00"
)

// parseAzureTime parses a TIMESTAMP cell in either layout.
func parseAzureTime(s string) (time.Time, error) {
	ts, err := time.Parse(azureLayout, s)
	if err != nil {
		if ts, err = time.Parse(azureLayoutTZ, s); err != nil {
			return time.Time{}, fieldErr("TIMESTAMP", "want YYYY-MM-DD HH:MM:SS[.ffffff][+hh:mm], got %q", s)
		}
	}
	return ts.UTC(), nil
}

// unixEpoch and maxWallClock bound the wall-clock times a Duration
// offset from the epoch can hold.
var (
	unixEpoch    = time.Unix(0, 0).UTC()
	maxWallClock = time.Unix(0, math.MaxInt64).UTC()
)

// azureColumns is the Azure LLM inference trace 2023/2024 format
// (Azure/AzurePublicDataset): TIMESTAMP, ContextTokens, GeneratedTokens.
// Arrival is the wall-clock time as an offset from the Unix epoch; the
// FileSource rebases it to the first row.
func azureColumns() csvColumns {
	return csvColumns{
		required: []string{"TIMESTAMP", "ContextTokens", "GeneratedTokens"},
		row: func(col func(string) string, lineNo int, r *Request) error {
			ts, err := parseAzureTime(col("TIMESTAMP"))
			if err != nil {
				return err
			}
			if ts.Before(unixEpoch) || ts.After(maxWallClock) {
				return fieldErr("TIMESTAMP", "%q out of range: want 1970 to 2262", col("TIMESTAMP"))
			}
			r.ID, r.Arrival = strconv.Itoa(lineNo), ts.Sub(unixEpoch)
			if r.InputTokens, err = csvInt(col, "ContextTokens"); err != nil {
				return err
			}
			r.OutputTokens, err = csvInt(col, "GeneratedTokens")
			return err
		},
	}
}

// burstColumns is the BurstGPT format (HPMLL/BurstGPT): Timestamp
// (seconds since the trace start, or unit when overridden), Model, Request tokens, Response
// tokens, Total tokens, Log Type, and in newer releases Session ID (also
// accepted as SessionID, the spelling of the BurstGPT README's notice).
// Model (ChatGPT or GPT-4) is not a servable model name and is dropped;
// failed requests (Response tokens 0) are kept as they are.
func burstColumns(unit timeUnit) csvColumns {
	return csvColumns{
		required: []string{"Timestamp", "Request tokens", "Response tokens"},
		optional: []string{"Session ID", "SessionID", "Model", "Log Type", "Total tokens"},
		row: func(col func(string) string, lineNo int, r *Request) error {
			s := col("Timestamp")
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fieldErr("Timestamp", "want a number (%s), got %q", unit.name, s)
			}
			if r.Arrival, err = unit.toDuration("Timestamp", v); err != nil {
				return err
			}
			r.ID, r.Session = strconv.Itoa(lineNo), col("Session ID")
			if r.Session == "" {
				r.Session = col("SessionID")
			}
			if r.InputTokens, err = csvInt(col, "Request tokens"); err != nil {
				return err
			}
			r.OutputTokens, err = csvInt(col, "Response tokens")
			return err
		},
	}
}
