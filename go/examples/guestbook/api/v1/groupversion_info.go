// Package v1 holds the Guestbook API (webapp.example.com/v1), the kubebuilder tutorial's kind grown into a
// small operator: its CRD is generated from the markers on these types by controller-gen.
// +kubebuilder:object:generate=true
// +groupName=webapp.example.com
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of this API.
	GroupVersion = schema.GroupVersion{Group: "webapp.example.com", Version: "v1"}
	// SchemeBuilder registers the types of this API with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds the types of this API to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
