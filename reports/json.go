package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"

	"github.com/tracebench/tracebench/metrics"
)

// WriteJSON writes {"runs": [Summary...]} with the same content as the
// markdown and CSV reports, one run per line. Figures that could not be
// measured (NaN in Go) are null; time-series points are [t_s, value].
func WriteJSON(w io.Writer, runs []*metrics.Summary) error {
	var b bytes.Buffer
	b.WriteString("{\"runs\": [")
	for i, s := range runs {
		line, err := json.Marshal(jsonValue(reflect.ValueOf(s)))
		if err != nil {
			return fmt.Errorf("write json report: %w", err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		b.Write(line)
	}
	b.WriteString("\n]}\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write json report: %w", err)
	}
	return nil
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// jsonValue converts v into values encoding/json can write, replacing NaN
// and infinite floats by nil. Struct field names, omitempty and omitzero
// follow the json tags; field order is kept.
func jsonValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	if v.Type().Implements(marshalerType) {
		return marshalerValue(v)
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return v.Interface()
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return jsonValue(v.Elem())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = jsonValue(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			out[fmt.Sprint(it.Key().Interface())] = jsonValue(it.Value())
		}
		return out
	case reflect.Struct:
		return structValue(v)
	}
	return v.Interface()
}

// marshalerValue keeps a value that marshals itself (nil stays null).
func marshalerValue(v reflect.Value) any {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Map) && v.IsNil() {
		return nil
	}
	return v.Interface()
}

// orderedObject is a JSON object that keeps its keys in order.
type orderedObject struct {
	keys []string
	vals []any
}

// MarshalJSON implements json.Marshaler.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func structValue(v reflect.Value) any {
	var o orderedObject
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fv := v.Field(i)
		if strings.Contains(opts, "omitempty") && isEmpty(fv) || strings.Contains(opts, "omitzero") && fv.IsZero() {
			continue
		}
		o.keys = append(o.keys, name)
		o.vals = append(o.vals, jsonValue(fv))
	}
	return o
}

// isEmpty is encoding/json's notion of an empty value for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Struct:
		return false
	}
	return v.IsZero()
}
