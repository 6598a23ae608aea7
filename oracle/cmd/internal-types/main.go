// Command internal-types prints, as JSON, how encoding/json writes the internal (unversioned) Go types a
// validation error may quote whole, and where each of their fields comes from in the v1 object a client sent.
// fakekube ships the output as fakekube/kinds/internal_types.json (scripts/generate-internal-types).
//
// Why: field.Error renders a bad value that is not a number, bool or string with json.Marshal (apimachinery
// pkg/util/validation/field/errors.go ErrorBody). A Job's immutable-template error quotes the internal
// core.PodTemplateSpec (pkg/apis/batch/validation/validation.go validatePodTemplateUpdate), whose fields have no
// json tags: every field is written under its Go name, in declaration order, nil pointers, slices and maps as
// null. Only the shape is read here (reflection on the release's types); no upstream code is copied.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/apis/core"
)

// A field of a struct as encoding/json writes it.
type field struct {
	Name      string   `json:"name"`                // the key written (json tag name, else the Go name)
	Go        string   `json:"go"`                  // the Go field name
	Inline    bool     `json:"inline,omitempty"`    // an embedded struct without a tag name: its fields promoted
	OmitEmpty bool     `json:"omitempty,omitempty"` // tag option
	OmitZero  bool     `json:"omitzero,omitempty"`  // tag option
	From      []string `json:"from"`                // the keys leading to its value in the v1 object; null: none
	Type      string   `json:"type"`
}

// A type: kind is struct, ptr, slice, map, string, bool, int, float or marshaler (a type with its own MarshalJSON).
type typeDesc struct {
	Kind   string  `json:"kind"`
	Elem   string  `json:"elem,omitempty"`
	Fields []field `json:"fields,omitempty"`
}

var marshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

func key(t reflect.Type) string {
	if t.Name() == "" {
		return ""
	}
	parts := strings.Split(t.PkgPath(), "/")
	if len(parts) >= 2 {
		return parts[len(parts)-2] + "/" + parts[len(parts)-1] + "." + t.Name()
	}
	return t.PkgPath() + "." + t.Name()
}

type walker struct{ types map[string]*typeDesc }

// ref names t (the internal type), walking v (its v1 counterpart, or nil) alongside to find each field's source.
func (w *walker) ref(t, v reflect.Type) string {
	switch t.Kind() {
	case reflect.Ptr, reflect.Slice, reflect.Map:
		var ve reflect.Type
		if v != nil && v.Kind() == t.Kind() {
			ve = v.Elem()
		} else if v != nil && t.Kind() == reflect.Ptr {
			ve = v // a pointer on one side only
		}
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		kind := map[reflect.Kind]string{reflect.Ptr: "ptr", reflect.Slice: "slice", reflect.Map: "map"}[t.Kind()]
		return kind + ":" + w.ref(t.Elem(), ve)
	}
	if v != nil && v.Kind() == reflect.Ptr && t.Kind() != reflect.Ptr {
		v = v.Elem()
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		k := key(t)
		w.types[k] = &typeDesc{Kind: "marshaler"}
		return k
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Interface:
		return "any"
	case reflect.Struct:
	default:
		panic(fmt.Sprintf("unhandled kind %s of %s", t.Kind(), t))
	}
	k := key(t)
	if _, seen := w.types[k]; seen {
		return k
	}
	desc := &typeDesc{Kind: "struct"}
	w.types[k] = desc
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts := parseTag(f.Tag.Get("json"))
		if name == "-" && opts == "" {
			continue
		}
		out := field{Go: f.Name, Name: name, OmitEmpty: strings.Contains(opts, "omitempty"),
			OmitZero: strings.Contains(opts, "omitzero")}
		if out.Name == "" {
			out.Name = f.Name
			out.Inline = f.Anonymous && f.Type.Kind() == reflect.Struct
		}
		var vt reflect.Type
		if v != nil {
			out.From, vt = source(v, f.Name)
		}
		out.Type = w.ref(f.Type, vt)
		desc.Fields = append(desc.Fields, out)
	}
	return k
}

// source finds the v1 field of the same Go name (directly or through inline embedded structs).
func source(v reflect.Type, goName string) ([]string, reflect.Type) {
	if v.Kind() != reflect.Struct {
		return nil, nil
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		name, _ := parseTag(f.Tag.Get("json"))
		if f.Name == goName {
			if name == "" && f.Anonymous {
				return []string{}, f.Type
			}
			if name == "" {
				name = f.Name
			}
			return []string{name}, f.Type
		}
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		name, _ := parseTag(f.Tag.Get("json"))
		if f.Anonymous && name == "" {
			if path, t := source(f.Type, goName); path != nil {
				return path, t
			}
		}
	}
	return nil, nil
}

func parseTag(tag string) (string, string) {
	name, opts, _ := strings.Cut(tag, ",")
	return name, opts
}

func main() {
	w := &walker{types: map[string]*typeDesc{}}
	roots := map[string]string{
		"PodTemplateSpec": w.ref(reflect.TypeOf(core.PodTemplateSpec{}), reflect.TypeOf(corev1.PodTemplateSpec{})),
		// a suspended Job's template may change only its containers' resources: the error quotes its spec
		"PodSpec": w.ref(reflect.TypeOf(core.PodSpec{}), reflect.TypeOf(corev1.PodSpec{})),
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"roots": roots, "types": w.types}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
