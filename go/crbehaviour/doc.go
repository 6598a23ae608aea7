// Package crbehaviour holds a table of the controller-runtime behaviour a reconciler relies on (cache reads
// after sync, the write verbs and their conflicts, server-side apply, the status subresource, DeleteAllOf,
// field indexes and selectors, label-selected caches, owner enqueueing, leader election, events), each row
// run on fakekube and, when one is configured, on the oracle's real kube-apiserver (docs/go.md).
package crbehaviour
