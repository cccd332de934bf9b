package policies

import "fmt"

// build looks up the policy of kind called name, resolves p into its
// full parameters and calls construct with them; an error from construct
// names the policy and, where an environment variable set the faulty
// parameter, says so.
func build[T any](kind Kind, name string, p Params, construct func(s *Spec, full Params) (T, error)) (T, error) {
	var zero T
	s, full, err := lookupResolved(kind, name, p)
	if err != nil {
		return zero, err
	}
	v, err := construct(s, full)
	if err != nil {
		return zero, fmt.Errorf("%s %s: %w", kind, name, s.blameEnv(p, err))
	}
	return v, nil
}

// lookupResolved looks up the policy of kind called name and resolves p
// into its full parameters.
func lookupResolved(kind Kind, name string, p Params) (*Spec, Params, error) {
	s, err := Lookup(kind, name)
	if err != nil {
		return nil, nil, err
	}
	full, err := s.resolve(p)
	if err != nil {
		return nil, nil, err
	}
	return s, full, nil
}
