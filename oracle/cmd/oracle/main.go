// Command oracle runs a real Kubernetes control plane on loopback for fakekube's differential tests and
// benchmarks: etcd embedded in this process, and the upstream kube-apiserver and kube-controller-manager
// (built beside this binary from the same k8s.io/kubernetes release) as child processes. It writes a
// kubeconfig for a client-certificate admin in system:masters, as envtest does, then a ready file, and stops
// everything it started on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The controllers whose effects a client sees on a cluster without nodes: garbage collection, namespace
// deletion, the default ServiceAccount and its token, and the kube-root-ca.crt ConfigMap in every namespace.
const defaultControllers = "garbage-collector-controller,namespace-controller,serviceaccount-controller," +
	"serviceaccount-token-controller,root-ca-certificate-publisher-controller"

type options struct {
	dir             string
	port            int
	kubeconfig      string
	readyFile       string
	controllers     string
	auditLogPath    string
	auditPolicyFile string
	emulatedVersion string
	scheduler       bool
	apiserverArgs   multiFlag
	startTimeout    time.Duration
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", "", "working directory for etcd data, certificates and logs (default: a new temporary one, removed at exit)")
	flag.IntVar(&o.port, "port", 0, "kube-apiserver's secure port on 127.0.0.1 (default 0: any free port)")
	flag.StringVar(&o.kubeconfig, "kubeconfig", "", "where to write the admin kubeconfig (default DIR/kubeconfig)")
	flag.StringVar(&o.readyFile, "ready-file", "", "a file written once the control plane answers (its content: the kubeconfig path)")
	flag.StringVar(&o.controllers, "controllers", defaultControllers, "kube-controller-manager's --controllers; empty for no controller manager")
	flag.StringVar(&o.auditLogPath, "audit-log-path", "", "kube-apiserver --audit-log-path")
	flag.StringVar(&o.auditPolicyFile, "audit-policy-file", "", "kube-apiserver --audit-policy-file (default: Metadata for every request when --audit-log-path is set)")
	flag.StringVar(&o.emulatedVersion, "emulated-version", "", "kube-apiserver --emulated-version (an earlier minor release's API)")
	flag.BoolVar(&o.scheduler, "scheduler", false, "also run kube-scheduler (it binds pods to nodes; the oracle has no nodes of its own: add them, e.g. kwok's)")
	flag.Var(&o.apiserverArgs, "apiserver-arg", "one more kube-apiserver flag, as --name=value (repeatable)")
	flag.DurationVar(&o.startTimeout, "start-timeout", 2*time.Minute, "how long to wait for the control plane to be ready")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	// A caller that started us in the background (nohup, `&`) may have left SIGINT ignored; NotifyContext
	// above re-enables it, so a clean stop never depends on how the oracle was launched.
	if o.dir == "" {
		dir, err := os.MkdirTemp("", "fakekube-oracle-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.dir = dir
	}
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return err
	}
	if o.kubeconfig == "" {
		o.kubeconfig = filepath.Join(o.dir, "kubeconfig")
	}
	binDir, err := ownDir()
	if err != nil {
		return err
	}
	pki, err := writePKI(o.dir)
	if err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	if o.port != 0 {
		ports[0] = o.port
	}
	started := time.Now()
	etcd, etcdURL, err := startEtcd(filepath.Join(o.dir, "etcd"), ports[1], ports[2])
	if err != nil {
		return err
	}
	defer etcd.Close()

	server := fmt.Sprintf("https://127.0.0.1:%d", ports[0])
	apiserver, err := startChild(filepath.Join(binDir, "kube-apiserver"), apiserverFlags(o, pki, etcdURL, ports[0]),
		filepath.Join(o.dir, "kube-apiserver.log"))
	if err != nil {
		return err
	}
	children := []*child{apiserver}
	defer func() { stopChildren(children) }()

	client, err := adminClient(pki)
	if err != nil {
		return err
	}
	waitCtx, cancelWait := context.WithTimeout(ctx, o.startTimeout)
	defer cancelWait()
	if err := waitReady(waitCtx, client, server+"/readyz", apiserver); err != nil {
		return err
	}
	if err := writeKubeconfig(o.kubeconfig, server, pki); err != nil {
		return err
	}
	if o.controllers != "" {
		kcm, err := startChild(filepath.Join(binDir, "kube-controller-manager"), controllerManagerFlags(o, pki),
			filepath.Join(o.dir, "kube-controller-manager.log"))
		if err != nil {
			return err
		}
		children = append(children, kcm)
		// What a client sees first in a namespace is its default ServiceAccount: wait for it, so a pod created
		// at once is not refused for a ServiceAccount the controller has not made yet.
		if strings.Contains(o.controllers, "serviceaccount-controller") {
			if err := waitReady(waitCtx, client, server+"/api/v1/namespaces/default/serviceaccounts/default", kcm); err != nil {
				return err
			}
		}
	}
	if o.scheduler {
		sched, err := startChild(filepath.Join(binDir, "kube-scheduler"), schedulerFlags(o),
			filepath.Join(o.dir, "kube-scheduler.log"))
		if err != nil {
			return err
		}
		children = append(children, sched)
	}
	fmt.Printf("oracle: ready in %.1fs at %s; kubeconfig %s\n", time.Since(started).Seconds(), server, o.kubeconfig)
	if o.readyFile != "" {
		if err := os.WriteFile(o.readyFile, []byte(o.kubeconfig+"\n"), 0o600); err != nil {
			return err
		}
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-etcd.Err():
		return fmt.Errorf("etcd stopped: %w", err)
	case <-apiserver.done:
		return fmt.Errorf("kube-apiserver exited: %s", apiserver.tail())
	}
}

func apiserverFlags(o options, p *pki, etcdURL string, port int) []string {
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + o.dir,
		"--tls-cert-file=" + p.servingCert,
		"--tls-private-key-file=" + p.servingKey,
		"--client-ca-file=" + p.caCert,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.saPub,
		"--service-account-signing-key-file=" + p.saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=Node,RBAC",
		"--allow-privileged=true",
		// No aggregated API servers exist here; the endpoint reconciler would only log about the loopback
		// address it cannot publish.
		"--endpoint-reconciler-type=none",
		"--v=1",
	}
	if o.auditLogPath != "" {
		policy := o.auditPolicyFile
		if policy == "" {
			policy = filepath.Join(o.dir, "audit-policy.yaml")
			_ = os.WriteFile(policy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"), 0o600)
		}
		args = append(args, "--audit-log-path="+o.auditLogPath, "--audit-policy-file="+policy,
			"--audit-log-mode=blocking", "--audit-log-format=json")
	}
	if o.emulatedVersion != "" {
		args = append(args, "--emulated-version="+o.emulatedVersion)
	}
	return append(args, o.apiserverArgs...)
}

func controllerManagerFlags(o options, p *pki) []string {
	return []string{
		"--kubeconfig=" + o.kubeconfig,
		"--authentication-kubeconfig=" + o.kubeconfig,
		"--authorization-kubeconfig=" + o.kubeconfig,
		"--controllers=" + o.controllers,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=0",
		"--service-account-private-key-file=" + p.saKey,
		"--root-ca-file=" + p.caCert,
		"--use-service-account-credentials=false",
		// The garbage collector and namespace controller act within a second, as on a lightly loaded cluster.
		"--concurrent-gc-syncs=20",
		"--v=1",
	}
}

// schedulerFlags run kube-scheduler with its default profile as the admin: one replica, so no leader election,
// and no serving port (nothing here scrapes its metrics or probes its health).
func schedulerFlags(o options) []string {
	return []string{
		"--kubeconfig=" + o.kubeconfig,
		"--authentication-kubeconfig=" + o.kubeconfig,
		"--authorization-kubeconfig=" + o.kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=0",
		"--v=1",
	}
}

func ownDir() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		return "", err
	}
	return filepath.Dir(exe), nil
}

func freePorts(n int) ([]int, error) {
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
