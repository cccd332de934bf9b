package traces

import (
	"io"
)

// Source yields Requests in non-decreasing Arrival order. Next returns
// io.EOF after the last Request. Sources are not safe for concurrent use.
type Source interface {
	Next() (Request, error)
}

// SliceSource is a Source over an in-memory slice.
type SliceSource struct {
	reqs []Request
	pos  int
}

// NewSliceSource returns a Source that yields reqs in order.
func NewSliceSource(reqs []Request) *SliceSource { return &SliceSource{reqs: reqs} }

// Next implements Source.
func (s *SliceSource) Next() (Request, error) {
	if s.pos >= len(s.reqs) {
		return Request{}, io.EOF
	}
	s.pos++
	return s.reqs[s.pos-1], nil
}

// ReadAll drains src into a slice.
func ReadAll(src Source) ([]Request, error) {
	var out []Request
	for {
		r, err := src.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
}
