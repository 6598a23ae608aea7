package conversionwebhooks

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	crconversion "sigs.k8s.io/controller-runtime/pkg/webhook/conversion"

	"go.uber.org/zap/zapcore"

	"fakekube/go/internal/clusters"
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.DPanicLevel)))
	os.Exit(clusters.Main(m, clusters.Options{}))
}

const group = "convert.fakekube.test"

// GadgetV1 is the spoke: spec.size is a string.
type GadgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size string `json:"size,omitempty"`
	} `json:"spec,omitempty"`
}

// GadgetV2 is the hub (and the storage version): spec.replicas is a number.
type GadgetV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Replicas int `json:"replicas"`
	} `json:"spec,omitempty"`
}

func (in *GadgetV1) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func (in *GadgetV2) DeepCopyObject() runtime.Object {
	out := *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// Hub marks v2 as the hub.
func (*GadgetV2) Hub() {}

// ConvertTo converts the spoke to the hub.
func (in *GadgetV1) ConvertTo(dst conversion.Hub) error {
	hub := dst.(*GadgetV2)
	hub.ObjectMeta = in.ObjectMeta
	n, err := strconv.Atoi(in.Spec.Size)
	hub.Spec.Replicas = n
	return err
}

// ConvertFrom converts the hub to the spoke.
func (in *GadgetV1) ConvertFrom(src conversion.Hub) error {
	hub := src.(*GadgetV2)
	in.ObjectMeta = hub.ObjectMeta
	in.Spec.Size = strconv.Itoa(hub.Spec.Replicas)
	return nil
}

func serverCerts(t *testing.T, dir string) []byte {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "conversion-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "conversion"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	caCert, _ := x509.ParseCertificate(caDER)
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	write := func(name, kind string, der []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("tls.crt", "CERTIFICATE", leafDER)
	write("tls.key", "EC PRIVATE KEY", keyDER)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func crd(url string, caPEM []byte) *unstructured.Unstructured {
	schemaOf := map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "properties": map[string]any{
		"spec": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
			"versions": []any{
				map[string]any{"name": "v1", "served": true, "storage": false, "schema": schemaOf},
				map[string]any{"name": "v2", "served": true, "storage": true, "schema": schemaOf},
			},
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"clientConfig":             map[string]any{"url": url, "caBundle": base64.StdEncoding.EncodeToString(caPEM)},
				"conversionReviewVersions": []any{"v1"}}},
		}}}
}

func TestControllerRuntimeConversionWebhook(t *testing.T) {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Gadget"}, &GadgetV1{})
	scheme.AddKnownTypeWithName(schema.GroupVersionKind{Group: group, Version: "v2", Kind: "Gadget"}, &GadgetV2{})
	dir := t.TempDir()
	caPEM := serverCerts(t, dir)
	port := freePort(t)
	server := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir})
	server.Register("/convert", crconversion.NewWebhookHandler(scheme, crconversion.NewRegistry()))
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = server.Start(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for server.StartedChecker()(nil) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the webhook server did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}

	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		dyn := dynamic.NewForConfigOrDie(c.Config)
		crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1",
			Resource: "customresourcedefinitions"})
		if _, err := crds.Create(ctx, crd(fmt.Sprintf("https://127.0.0.1:%d/convert", port), caPEM),
			metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = crds.Delete(ctx, "gadgets."+group, metav1.DeleteOptions{}) }()
		v1 := dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gadgets"}).Namespace("default")
		v2 := dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v2", Resource: "gadgets"}).Namespace("default")
		gadget := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": group + "/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g"},
			"spec": map[string]any{"size": "3"}}}
		// The CRD is served (and its conversion set up) a moment after it is created on a real server.
		var created *unstructured.Unstructured
		var err error
		for until := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			created, err = v1.Create(ctx, gadget, metav1.CreateOptions{})
			if err == nil || time.Now().After(until) {
				break
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if size, _, _ := unstructured.NestedString(created.Object, "spec", "size"); size != "3" {
			t.Errorf("created through v1: %v", created.Object["spec"])
		}
		stored, err := v2.Get(ctx, "g", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if replicas, _, _ := unstructured.NestedInt64(stored.Object, "spec", "replicas"); replicas != 3 {
			t.Errorf("read through v2 (the hub, stored): %v", stored.Object["spec"])
		}
		stored.Object["spec"] = map[string]any{"replicas": int64(5)}
		if _, err := v2.Update(ctx, stored, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		list, err := v1.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || list.Items[0].Object["spec"].(map[string]any)["size"] != "5" {
			t.Errorf("listed through v1: %v", list.Items)
		}
		if err := v1.Delete(ctx, "g", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}
