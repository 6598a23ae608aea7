package fakekubeenv

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// WaitForCRDs waits until every CRD is Established and each of its served versions' resources is listed by the
// discovery a client's REST mapper reads (the aggregated /api and /apis documents where the server has them,
// else the per-group-version lists), with a fresh discovery client on every poll so nothing is cached.
//
// envtest.InstallCRDs already polls /apis/<group>/<version> for the resource; this adds the Established
// condition and the group list a controller-runtime client actually consults, so that once it returns a new
// client's first request for the kind finds its mapping on either server. pollInterval and maxTime default to
// envtest's (100 ms, 10 s).
func WaitForCRDs(cfg *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition, pollInterval, maxTime time.Duration) error {
	if len(crds) == 0 {
		return nil
	}
	if pollInterval <= 0 {
		pollInterval = 100 * time.Millisecond
	}
	if maxTime <= 0 {
		maxTime = 10 * time.Second
	}
	extensions, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	missing := []string{"not polled yet"}
	poll := func(ctx context.Context) (bool, error) {
		var now []string
		// What the last poll that ran to the end found is what the timeout reports, not a request cut short by it.
		defer func() {
			if ctx.Err() == nil {
				missing = now
			}
		}()
		// A new discovery client each poll, as envtest's poller makes a new clientset: nothing is remembered.
		disco, err := discovery.NewDiscoveryClientForConfig(cfg)
		if err != nil {
			return false, err
		}
		_, lists, err := disco.ServerGroupsAndResources()
		if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
			now = append(now, "discovery: "+err.Error())
			return false, nil
		}
		served := map[string]bool{}
		for _, list := range lists {
			for _, resource := range list.APIResources {
				served[list.GroupVersion+"/"+resource.Name] = true
			}
		}
		for _, crd := range crds {
			current, err := extensions.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				now = append(now, crd.Name+": "+err.Error())
				continue
			}
			if !established(current) {
				now = append(now, crd.Name+" not Established")
			}
			for _, version := range current.Spec.Versions {
				key := current.Spec.Group + "/" + version.Name + "/" + current.Spec.Names.Plural
				if version.Served && !served[key] {
					now = append(now, key+" not in discovery")
				}
			}
		}
		return len(now) == 0, nil
	}
	if err := wait.PollUntilContextTimeout(context.Background(), pollInterval, maxTime, true, poll); err != nil {
		sort.Strings(missing)
		return fmt.Errorf("fakekubeenv: CRDs not ready after %s (%s): %w", maxTime, strings.Join(missing, "; "), err)
	}
	return nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}
