// Package fakekubeenv runs `fakekube serve` for Go tests, in the shape of controller-runtime's
// envtest.Environment: set the CRDs, call Start for a *rest.Config, call Stop when done.
//
//	env := &fakekubeenv.Environment{CRDDirectoryPaths: []string{"config/crd/bases"}, ErrorIfCRDPathMissing: true}
//	cfg, err := env.Start()
//	...
//	defer env.Stop()
//
// fakekube is a Python program; the Environment finds it through $FAKEKUBE_BINARY (a fakekube executable),
// $FAKEKUBE_PYTHON (a Python with fakekube installed, run as `python -m fakekube`) or `fakekube` on PATH.
// The server runs in its own process group and dies with the test binary (Linux: PR_SET_PDEATHSIG), so a
// panic or a `go test -timeout` leaves nothing behind. See docs/go.md in the fakekube repository.
package fakekubeenv
