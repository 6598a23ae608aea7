package controller

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
)

// table GETs the namespace's guestbooks as a meta.k8s.io/v1 Table (what kubectl get asks for) and returns
// the column names and the rows' cells.
func table(ctx context.Context, cfg *rest.Config, namespace string) ([]string, [][]any, error) {
	config := rest.CopyConfig(cfg)
	config.GroupVersion = &schema.GroupVersion{Group: "webapp.example.com", Version: "v1"}
	config.APIPath = "/apis"
	config.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	rc, err := rest.RESTClientFor(config)
	if err != nil {
		return nil, nil, err
	}
	result := &metav1.Table{}
	err = rc.Get().Namespace(namespace).Resource("guestbooks").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").Do(ctx).Into(result)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, c := range result.ColumnDefinitions {
		names = append(names, c.Name)
	}
	var rows [][]any
	for _, r := range result.Rows {
		rows = append(rows, r.Cells)
	}
	if len(result.Rows) > 0 && len(result.Rows[0].Cells) != len(names) {
		return nil, nil, fmt.Errorf("%d cells for %d columns", len(result.Rows[0].Cells), len(names))
	}
	return names, rows, nil
}
