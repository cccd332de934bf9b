package cli

import (
	"io"
	"os"
	"sync"
)

// syncWriter serialises Writes to w, so that runs side by side (bench
// --jobs) and their servers' log lines can share stderr.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements io.Writer.
func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// File is the *os.File under s, or nil (for the terminal check).
func (s *syncWriter) File() *os.File {
	f, _ := s.w.(*os.File)
	return f
}
