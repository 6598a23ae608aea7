package admissionwebhooks

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"go.uber.org/zap/zapcore"

	"fakekube/go/internal/clusters"
)

func TestMain(m *testing.M) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.DPanicLevel)))
	os.Exit(clusters.Main(m, clusters.Options{}))
}

// labeler adds a label to every ConfigMap: a mutating handler as operators write them.
type labeler struct{}

func (labeler) Handle(_ context.Context, req admission.Request) admission.Response {
	cm := &corev1.ConfigMap{}
	if err := json.Unmarshal(req.Object.Raw, cm); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels["mutated-by"] = "controller-runtime"
	current, err := json.Marshal(cm)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, current)
}

// refuser denies a ConfigMap whose data holds "forbidden".
type refuser struct{}

func (refuser) Handle(_ context.Context, req admission.Request) admission.Response {
	cm := &corev1.ConfigMap{}
	if err := json.Unmarshal(req.Object.Raw, cm); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if _, bad := cm.Data["forbidden"]; bad {
		return admission.Denied("forbidden key in data")
	}
	return admission.Allowed("")
}

// serverCerts writes a throwaway CA and a server certificate for 127.0.0.1 into dir; it returns the CA's PEM.
func serverCerts(t *testing.T, dir string) []byte {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "webhook"},
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

func TestControllerRuntimeWebhookServer(t *testing.T) {
	dir := t.TempDir()
	caPEM := serverCerts(t, dir)
	port := freePort(t)
	server := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: port, CertDir: dir})
	server.Register("/mutate-configmap", &webhook.Admission{Handler: labeler{}})
	server.Register("/validate-configmap", &webhook.Admission{Handler: refuser{}})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // before t.TempDir's removal: the server's certificate watcher stops first
	go func() { _ = server.Start(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for server.StartedChecker()(nil) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the webhook server did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}

	clusters.Each(t, func(t *testing.T, c *clusters.Cluster) {
		cs := kubernetes.NewForConfigOrDie(c.Config)
		ns := fmt.Sprintf("crwebhook-%d", time.Now().UnixNano()%1_000_000)
		name := "cr-" + ns
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: ns, Labels: map[string]string{"crwebhook": ns}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}) }()
		none := admissionregistrationv1.SideEffectClassNone
		fail := admissionregistrationv1.Fail
		rules := []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"},
				Resources: []string{"configmaps"}},
		}}
		selector := &metav1.LabelSelector{MatchLabels: map[string]string{"crwebhook": ns}}
		url := func(path string) *string { u := fmt.Sprintf("https://127.0.0.1:%d%s", port, path); return &u }
		mutating := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
			Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: "mcm.fakekube.test", ClientConfig: admissionregistrationv1.WebhookClientConfig{
					URL: url("/mutate-configmap"), CABundle: caPEM},
				Rules: rules, SideEffects: &none, FailurePolicy: &fail, NamespaceSelector: selector,
				AdmissionReviewVersions: []string{"v1"}}}}
		validating := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: "vcm.fakekube.test", ClientConfig: admissionregistrationv1.WebhookClientConfig{
					URL: url("/validate-configmap"), CABundle: caPEM},
				Rules: rules, SideEffects: &none, FailurePolicy: &fail, NamespaceSelector: selector,
				AdmissionReviewVersions: []string{"v1"}}}}
		adm := cs.AdmissionregistrationV1()
		if _, err := adm.MutatingWebhookConfigurations().Create(ctx, mutating, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = adm.MutatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{}) }()
		if _, err := adm.ValidatingWebhookConfigurations().Create(ctx, validating, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = adm.ValidatingWebhookConfigurations().Delete(ctx, name, metav1.DeleteOptions{}) }()

		// kube-apiserver sees a new configuration through an informer: wait until a dry run is refused.
		probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe"}, Data: map[string]string{"forbidden": "x"}}
		waitUntil := time.Now().Add(30 * time.Second)
		for {
			_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil {
				break
			}
			if time.Now().After(waitUntil) {
				t.Fatal("the validating webhook was never called")
			}
			time.Sleep(100 * time.Millisecond)
		}

		created, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "ok"}, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if created.Labels["mutated-by"] != "controller-runtime" {
			t.Errorf("the mutating webhook's patch did not land: labels %v", created.Labels)
		}
		stored, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "ok", metav1.GetOptions{})
		if err != nil || stored.Labels["mutated-by"] != "controller-runtime" {
			t.Errorf("stored labels %v (%v)", stored.Labels, err)
		}
		_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "bad"}, Data: map[string]string{"forbidden": "x"}}, metav1.CreateOptions{})
		want := `admission webhook "vcm.fakekube.test" denied the request: forbidden key in data`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("denial: got %v, want %q", err, want)
		}
		if _, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "bad", metav1.GetOptions{}); err == nil {
			t.Error("a denied ConfigMap was stored")
		}
	})
}
