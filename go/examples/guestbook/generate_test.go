package guestbook

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedFilesAreCurrent regenerates the deepcopy code and the CRD with the pinned controller-gen
// into a temporary folder and compares them with the committed files: a marker changed without
// `go generate ./examples/guestbook` fails here. (The first run builds controller-gen: about 40 s.)
func TestGeneratedFilesAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds controller-gen")
	}
	objects, crds := t.TempDir(), t.TempDir()
	cmd := exec.Command("go", "run", "sigs.k8s.io/controller-tools/cmd/controller-gen@"+ControllerToolsVersion,
		"object", "crd", "paths=./api/...", "output:object:dir="+objects, "output:crd:dir="+crds)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("controller-gen: %v\n%s", err, out)
	}
	compare(t, filepath.Join(objects, "zz_generated.deepcopy.go"), "api/v1/zz_generated.deepcopy.go")
	compare(t, filepath.Join(crds, "webapp.example.com_guestbooks.yaml"), "config/crd/bases/webapp.example.com_guestbooks.yaml")
}

func compare(t *testing.T, fresh, committed string) {
	t.Helper()
	want, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what controller-gen %s makes of the markers: run go generate ./examples/guestbook", committed, ControllerToolsVersion)
	}
}
