package metrics

// Failed is the number of failed requests.
func (s *Summary) Failed() int64 { return s.Requests - s.OK }

// Label is the display name a report gave the Run among others of its
// policy ("" when none).
func (s *Summary) Label() string { return s.label }

// SetLabel sets the display name Name returns ("": the policy's name).
func (s *Summary) SetLabel(l string) { s.label = l }

// SessionRows lists the Run's sessions one by one (sessions.csv).
func (s *Summary) SessionRows() []SessionRow { return s.sessionRows }

// Name is the Run's display name: its policy, plus the shard when the
// Run replayed one shard; in a report of several runs of one policy, the
// facets that tell them apart (see reports' labelRuns, through SetLabel).
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
