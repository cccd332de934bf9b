package traces

// lengthsPresent checks the input_length and output_length fields (in
// tokens) of a JSON trace line: the error names the first that is
// absent, nil when both are there.
func lengthsPresent(in, out *int) error {
	switch {
	case in == nil:
		return fieldErr("input_length", "missing")
	case out == nil:
		return fieldErr("output_length", "missing")
	}
	return nil
}
