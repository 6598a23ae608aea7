// Package podstreams checks that an operator's own streaming code works against fakekube serve: client-go's
// exec executors (remotecommand.NewSPDYExecutor, NewWebSocketExecutor, NewFallbackExecutor) and its
// port-forwarder (tools/portforward over SPDY/3.1, over SPDY tunnelled in a WebSocket, and the fallback
// dialer kubectl uses), each against a pod the fake cluster's kubelet runs (docs/pods.md).
//
// It runs on fakekube only: the repository's oracle has no nodes or kubelets to exec into.
package podstreams
