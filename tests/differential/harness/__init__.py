"""The differential harness: judges fakekube against the real kube-apiserver, so it never imports fakekube."""
