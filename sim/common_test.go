package sim

import (
	"reflect"
	"testing"

	"github.com/tracebench/tracebench/replay"
)

// TestOptionsShareCommon: a real-time Run's Options and a simulation's
// Options take what they share from the one embedded Common, and
// repeat none of it.
func TestOptionsShareCommon(t *testing.T) {
	common := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[replay.Common]()) {
		common[f.Name] = true
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[replay.Options](), reflect.TypeFor[Options]()} {
		if f, ok := typ.FieldByName("Common"); !ok || !f.Anonymous {
			t.Errorf("%s does not embed Common", typ.Name())
		}
		for i := range typ.NumField() {
			if f := typ.Field(i); !f.Anonymous && common[f.Name] {
				t.Errorf("%s repeats Common's field %s", typ.Name(), f.Name)
			}
		}
	}
	own := map[string]string{}
	for _, typ := range []reflect.Type{reflect.TypeFor[replay.Options](), reflect.TypeFor[Options]()} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Anonymous {
				continue
			}
			if other, ok := own[f.Name]; ok {
				t.Errorf("%s and %s both have %s: it belongs in Common", other, typ.Name(), f.Name)
			}
			own[f.Name] = typ.Name()
		}
	}
}
