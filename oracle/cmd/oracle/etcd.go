package main

import (
	"fmt"
	"net/url"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// startEtcd runs etcd inside the oracle's own process on loopback. fsync is off: the data lives only as long
// as the run, and a throwaway store has nothing to make durable.
func startEtcd(dir string, clientPort, peerPort int) (*embed.Etcd, string, error) {
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	clientURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", clientPort)}
	peerURL := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peerPort)}
	cfg.ListenClientUrls = []url.URL{clientURL}
	cfg.AdvertiseClientUrls = []url.URL{clientURL}
	cfg.ListenPeerUrls = []url.URL{peerURL}
	cfg.AdvertisePeerUrls = []url.URL{peerURL}
	cfg.InitialCluster = cfg.Name + "=" + peerURL.String()
	cfg.ListenMetricsUrls = nil
	etcd, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("starting etcd: %w", err)
	}
	select {
	case <-etcd.Server.ReadyNotify():
		return etcd, clientURL.String(), nil
	case err := <-etcd.Err():
		etcd.Close()
		return nil, "", fmt.Errorf("etcd failed: %w", err)
	case <-time.After(60 * time.Second):
		etcd.Close()
		return nil, "", fmt.Errorf("etcd not ready after 60s")
	}
}
