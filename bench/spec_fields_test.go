package bench

import (
	"reflect"
	"testing"
)

// specFields walks t's exported fields, descending into this package's
// structs, and returns each leaf as "path type"; byName collects the
// paths of each leaf name and byType those of each non-basic type.
func specFields(t reflect.Type, path string, out *[]string, byName, byType map[string][]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		p, ft := path+"."+f.Name, f.Type
		if ft.Kind() == reflect.Struct && ft.PkgPath() == t.PkgPath() {
			specFields(ft, p, out, byName, byType)
			continue
		}
		*out = append(*out, p+" "+ft.String())
		byName[f.Name] = append(byName[f.Name], p)
		if base := ft; base.Kind() == reflect.Struct || base.Kind() == reflect.Pointer && base.Elem().Kind() == reflect.Struct {
			if base.Kind() == reflect.Pointer {
				base = base.Elem()
			}
			byType[base.String()] = append(byType[base.String()], p)
		}
	}
}

// TestSpecOneFieldPerConcept fails when a Spec holds one concept twice:
// two fields of one name (Spec.Router beside Spec.Policy.Router) or of
// one configuration type (Spec.Engines beside Spec.Fleet, both
// engine.Config).
func TestSpecOneFieldPerConcept(t *testing.T) {
	var fields []string
	byName, byType := map[string][]string{}, map[string][]string{}
	specFields(reflect.TypeFor[Spec](), "Spec", &fields, byName, byType)
	for name, paths := range byName {
		if len(paths) > 1 {
			t.Errorf("field name %s appears %d times: %v; keep one", name, len(paths), paths)
		}
	}
	for typ, paths := range byType {
		if len(paths) > 1 {
			t.Errorf("type %s held by %d fields: %v; keep one", typ, len(paths), paths)
		}
	}
	if len(fields) < 40 {
		t.Fatalf("found %d fields in Spec; the walk is broken: %v", len(fields), fields)
	}
}
