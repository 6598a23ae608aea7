package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
)

// The control plane trusts exactly what writePKI makes: each leaf must verify against the CA for its own use,
// and the admin must be in system:masters, the group the bootstrap policy makes cluster-admin.
func TestWritePKI(t *testing.T) {
	p, err := writePKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	caPEM, err := os.ReadFile(p.caCert)
	if err != nil {
		t.Fatal(err)
	}
	if !roots.AppendCertsFromPEM(caPEM) {
		t.Fatal("CA certificate does not parse")
	}
	cases := []struct {
		name, cert, key string
		usage           x509.ExtKeyUsage
		dnsName         string
		organization    string
	}{
		{"serving", p.servingCert, p.servingKey, x509.ExtKeyUsageServerAuth, "localhost", ""},
		{"admin", p.adminCert, p.adminKey, x509.ExtKeyUsageClientAuth, "", "system:masters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pair, err := tls.LoadX509KeyPair(tc.cert, tc.key)
			if err != nil {
				t.Fatalf("key pair: %v", err)
			}
			leaf, err := x509.ParseCertificate(pair.Certificate[0])
			if err != nil {
				t.Fatal(err)
			}
			opts := x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{tc.usage}, DNSName: tc.dnsName}
			if _, err := leaf.Verify(opts); err != nil {
				t.Errorf("does not verify for its use: %v", err)
			}
			if tc.organization != "" && (len(leaf.Subject.Organization) != 1 || leaf.Subject.Organization[0] != tc.organization) {
				t.Errorf("organization %v, want %s", leaf.Subject.Organization, tc.organization)
			}
		})
	}
	saPEM, err := os.ReadFile(p.saPub)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(saPEM)
	if block == nil || block.Type != "PUBLIC KEY" {
		t.Fatalf("service-account public key is not a PEM public key")
	}
	if _, err := x509.ParsePKIXPublicKey(block.Bytes); err != nil {
		t.Errorf("service-account public key: %v", err)
	}
}
