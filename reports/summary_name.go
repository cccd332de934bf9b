package reports

// errorCount is the number of failed requests.
func (s *Summary) errorCount() int64 { return s.Requests - s.OK }

// Name is the Run's display name: its policy, plus the shard when the
// Run replayed one shard; in a report of several runs of one policy, the
// facets that tell them apart (see labelRuns).
func (s *Summary) Name() string {
	if s.label != "" {
		return s.label
	}
	name := s.Header.Policy
	if name == "" {
		name = s.Header.Router
	}
	if name == "" {
		name = "run"
	}
	if s.Header.Shard != "" {
		name += " [shard " + s.Header.Shard + "]"
	}
	return name
}
