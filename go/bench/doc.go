// Package bench times fakekube against the real kube-apiserver for Go test authors, in one run: boot to the
// first answered request, and a small suite's wall time (the guestbook operator's, server boot included).
//
//	FAKEKUBE_GO_BENCH=1 FAKEKUBE_PYTHON=.venv/bin/python FAKEKUBE_ORACLE_BIN=/path/to/oracle/bin \
//	    go test -run TestBootAndSuiteSideBySide -v -timeout 30m ./bench
//
// docs/go.md has the figures.
package bench
