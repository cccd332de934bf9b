package policies

import (
	"encoding/json"

	"github.com/tracebench/tracebench/traces"
)

// Texts returns p as the text of each value, as a results header records
// resolved parameters ("balance_abs": "64", "eviction_interval": "60s").
func (p Params) Texts() map[string]string {
	if p == nil {
		return nil
	}
	out := make(map[string]string, len(p))
	for k, v := range p {
		out[k] = v.String()
	}
	return out
}

// MarshalJSON writes p as an object of each value's text.
func (p Params) MarshalJSON() ([]byte, error) { return json.Marshal(p.Texts()) }

// UnmarshalJSON reads an object of texts, as a results header records
// them: each value as the kind any registered policy declares for its
// name (see ReadValue).
func (p *Params) UnmarshalJSON(b []byte) error {
	var texts map[string]string
	if err := json.Unmarshal(b, &texts); err != nil {
		return err
	}
	if texts == nil {
		*p = nil
		return nil
	}
	out := make(Params, len(texts))
	for k, text := range texts {
		out[k] = ReadValue("", k, text)
	}
	*p = out
	return nil
}

// ReadValue reads text given for parameter name of a policy of kind (""
// any kind) as the first kind the registered policies of that kind
// declare for name that it is a value of (bool, int, float, duration,
// string; see ParseParam). A name none declares, or text of none of its
// kinds, is kept as a KindString value, for the policy to reject with
// an error naming the parameter.
func ReadValue(kind Kind, name, text string) traces.Value {
	v, err := readAs(declaredKinds(kind, name), text)
	if err != nil {
		return traces.ParamString(text)
	}
	return v
}
