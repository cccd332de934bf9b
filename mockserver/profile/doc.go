// Package profile holds engine profiles: the mock engine's model as data.
// A profile is a YAML file with every engine parameter (scheduler limits,
// KV cache geometry, batching mode, the per-step latency model and its
// jitter), where its figures come from, and, for a fitted profile, how
// well the fit determined each of them. Named profiles are embedded in
// the binary (see Names); Resolve takes a name or a file path.
//
// Loading is strict: an unknown field, a value of the wrong kind or one
// out of range is an error naming the file, the line and the field.
// Fields a file leaves out take the value of the "default" profile.
//
// The mapping between a profile and engine.Config lives in one file
// (mapping.go), so a new engine field is added in one place.
package profile
