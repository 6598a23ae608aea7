// Command zero-objects prints, as JSON, the object the field manager compares a create with: the Go zero
// value of every versioned kind the oracle's kube-apiserver serves, as encoding/json writes it (non-pointer
// structs as {}, fields without omitempty at their zero value or null). fakekube ships the output as
// fakekube/patch/zero_objects.json (scripts/generate-zero-objects; encoding/json sorts the map keys).
//
// Why: a create's managedFields entry is structured-merge-diff's comparison of the new object with
// `scope.Creater.New(kind)` (apiserver pkg/endpoints/handlers/create.go, apimachinery
// pkg/util/managedfields/internal/structuredmerge.go). A node the zero object already holds (spec, a
// non-pointer struct) is not "added", so it is not a member of the set; one it lacks (labels, data, a pointer
// struct) is, and then FieldsV1 marks it with ".".
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

func main() {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		scheme.AddToScheme, apiextensionsv1.AddToScheme, apiregistrationv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	out := map[string]map[string]json.RawMessage{}
	for gvk := range s.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		obj, err := s.New(gvk)
		if err != nil {
			continue
		}
		if _, err := meta.Accessor(obj); err != nil {
			continue // options, events of watch, Status: no metadata, never stored
		}
		data, err := json.Marshal(obj)
		if err != nil {
			fmt.Fprintln(os.Stderr, gvk, err)
			os.Exit(1)
		}
		av := gvk.GroupVersion().String()
		if out[av] == nil {
			out[av] = map[string]json.RawMessage{}
		}
		out[av][gvk.Kind] = data
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
