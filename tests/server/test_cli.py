"""``fakekube serve``: prints its URL, writes a kubeconfig, registers CRDs, stops on SIGINT."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def serving(*args: str) -> Iterator[str]:
    """``fakekube serve ARGS`` in a subprocess: yields the URL it prints; SIGINT must stop it cleanly."""
    proc = subprocess.Popen([sys.executable, "-m", "fakekube.cli", "serve", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_serve_prints_url_writes_kubeconfig_and_stops_on_interrupt(tmp_path, widget_crd):
    crd = tmp_path / "crd.yaml"
    crd.write_text(json.dumps(widget_crd))
    kubeconfig = tmp_path / "kubeconfig"
    with serving("--port", "0", "--crd", str(crd), "--kubeconfig", str(kubeconfig), "--token", "tok") as url:
        assert url.startswith("http://127.0.0.1:")
        config = json.loads(kubeconfig.read_text())
        assert config["clusters"][0]["cluster"]["server"] == url
        assert config["users"][0]["user"]["token"] == "tok"
        request = urllib.request.Request(f"{url}/apis/example.com/v1", headers={"Authorization": "Bearer tok"})
        with urllib.request.urlopen(request, timeout=5) as resp:
            assert {r["name"] for r in json.loads(resp.read())["resources"]} == {"widgets", "widgets/status"}


def test_serve_tls_without_token_writes_a_client_certificate_kubectl_uses(tmp_path):
    pytest.importorskip("cryptography")
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    kubeconfig = tmp_path / "kubeconfig"
    with serving("--tls", "--kubeconfig", str(kubeconfig)) as url:
        assert url.startswith("https://127.0.0.1:")
        assert "client-certificate-data" in json.loads(kubeconfig.read_text())["users"][0]["user"]
        env = {**os.environ, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(tmp_path / "cache")}
        # stdin closed: a kubeconfig without credentials would make kubectl prompt for a username and fail.
        listed = subprocess.run([kubectl, "get", "namespaces", "-o", "name"], capture_output=True, text=True,
                                timeout=60, env=env, stdin=subprocess.DEVNULL)
        assert listed.returncode == 0, listed.stderr
        assert "namespace/default" in listed.stdout


def test_serve_emulates_the_kubernetes_version_it_is_given():
    with serving("--kubernetes-version", "1.30") as url:
        with urllib.request.urlopen(f"{url}/version", timeout=5) as resp:
            assert json.loads(resp.read())["minor"] == "30"
        with urllib.request.urlopen(f"{url}/apis", timeout=5) as resp:
            groups = [g["name"] for g in json.loads(resp.read())["groups"]]
        assert "resource.k8s.io" not in groups and "flowcontrol.apiserver.k8s.io" in groups
    refused = subprocess.run([sys.executable, "-m", "fakekube.cli", "serve", "--kubernetes-version", "1.20"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2 and "supported versions: 1.25 to 1.37" in refused.stderr


def test_serve_keeps_a_bounded_audit_ring_but_logs_every_request(tmp_path):
    log = tmp_path / "audit.jsonl"
    with serving("--audit-memory", "0", "--audit-log", str(log)) as url:
        for _ in range(5):
            with urllib.request.urlopen(f"{url}/api/v1/namespaces/default/configmaps", timeout=5) as resp:
                resp.read()
    listed = [json.loads(line) for line in log.read_text().splitlines()
              if '"/api/v1/namespaces/default/configmaps"' in line]
    mine = [e for e in listed if e["stage"] == "ResponseComplete" and e.get("userAgent", "").startswith("Python-urllib")]
    assert len(mine) == 5
    refused = subprocess.run([sys.executable, "-m", "fakekube.cli", "serve", "--audit-memory", "-1"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2 and "must be 0 or more" in refused.stderr


@contextmanager
def _busy_port() -> Iterator[int]:
    """A port something already listens on: ``serve`` then stops right after its checks, before serving."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.mark.parametrize(("flags", "warned"), [(["--token", "t"], True), (["--token", "t", "--tls"], False),
                                                ([], False)])
def test_a_token_without_tls_is_a_warning(flags, warned, tmp_path, capsys):
    """client-go's kubeconfig loader reads credentials only for an HTTPS server: over HTTP kubectl gets 401
    (checked by hand with kubectl: "the server has asked for the client to provide credentials")."""
    from fakekube.cli import main

    if "--tls" in flags:
        pytest.importorskip("cryptography")
    with _busy_port() as port:
        assert main(["serve", "--no-controllers", "--port", str(port), "--kubeconfig", str(tmp_path / "kc"),
                     *flags]) == 1
    err = capsys.readouterr().err
    assert ("fakekube serve: warning: --token without --tls" in err) is warned
    if warned:
        assert f"the token in {tmp_path / 'kc'} only for an HTTPS server" in err and "add --tls" in err
