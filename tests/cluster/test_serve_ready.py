"""``fakekube serve --ready-file``: written only once the server answers and every node is registered (a
launcher waits for it instead of parsing output); SIGTERM ends serving cleanly and removes it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

# `fakekube serve` processes started and stopped, seconds each: a step of .ci/run of its own (`pytest -m slow`).
pytestmark = pytest.mark.slow


def _wait_for(path: Path, proc: subprocess.Popen[str], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "no ready file"
        time.sleep(0.02)


def _get(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=5) as resp:
        return json.loads(resp.read())


def test_ready_file_names_the_kubeconfig_once_nodes_are_registered_and_sigterm_removes_it(tmp_path):
    ready, kubeconfig = tmp_path / "ready", tmp_path / "kubeconfig"
    proc = subprocess.Popen([sys.executable, "-m", "fakekube", "serve", "--nodes", "3", "--token", "t",
                             "--kubeconfig", str(kubeconfig), "--ready-file", str(ready)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(ready, proc)
        assert ready.read_text() == f"{kubeconfig}\n"
        url = json.loads(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
        # No polling: ready already means registered (node created, Ready reported, lease taken).
        nodes = _get(f"{url}/api/v1/nodes", "t")["items"]
        assert [c["status"] for n in nodes for c in n["status"]["conditions"] if c["type"] == "Ready"] == ["True"] * 3
        assert len(_get(f"{url}/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "t")["items"]) == 3
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0  # a clean stop, not Python's default death by SIGTERM (-15)
        assert not ready.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ready_file_holds_the_url_without_a_kubeconfig(tmp_path):
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, "-m", "fakekube", "serve", "--no-controllers",
                             "--ready-file", str(ready)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(ready, proc)
        url = ready.read_text().strip()
        assert proc.stdout is not None and proc.stdout.readline().strip() == url
        with urllib.request.urlopen(f"{url}/version", timeout=5) as resp:
            assert json.loads(resp.read())["major"] == "1"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_no_controllers_is_envtests_bare_server(tmp_path):
    """No default ServiceAccount, no garbage collection, and pods admitted without an account: envtest runs
    kube-apiserver with --disable-admission-plugins=ServiceAccount and no controller manager."""
    ready = tmp_path / "ready"
    proc = subprocess.Popen([sys.executable, "-m", "fakekube", "serve", "--no-controllers", "--ready-file", str(ready)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(ready, proc)
        url = ready.read_text().strip()

        def send(method: str, path: str, body: dict | None = None) -> dict:
            data = json.dumps(body).encode() if body is not None else None
            request = urllib.request.Request(f"{url}{path}", data=data, method=method,
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=5) as resp:
                return json.loads(resp.read())

        send("POST", "/api/v1/namespaces", {"metadata": {"name": "bare"}})
        pod = send("POST", "/api/v1/namespaces/bare/pods",
                   {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
        assert "serviceAccountName" not in pod["spec"]
        time.sleep(0.2)
        assert send("GET", "/api/v1/namespaces/bare/serviceaccounts")["items"] == []
        owner = send("POST", "/api/v1/namespaces/bare/configmaps", {"metadata": {"name": "owner"}})
        ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner["metadata"]["uid"]}
        send("POST", "/api/v1/namespaces/bare/configmaps", {"metadata": {"name": "dependent", "ownerReferences": [ref]}})
        send("DELETE", "/api/v1/namespaces/bare/configmaps/owner")
        time.sleep(0.2)
        assert send("GET", "/api/v1/namespaces/bare/configmaps/dependent")["metadata"]["name"] == "dependent"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(15)


def test_only_the_emulated_plugins_with_a_switch_can_be_disabled():
    done = subprocess.run([sys.executable, "-m", "fakekube", "serve", "--disable-admission-plugins", "Priority"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert ("cannot disable Priority (only ServiceAccount, StorageObjectInUseProtection, TaintNodesByCondition)"
            in done.stderr)


def test_sigint_stops_serving_even_when_inherited_ignored(tmp_path):
    ready = tmp_path / "ready"
    # As under nohup or a shell's background job: SIGINT ignored from the start.
    proc = subprocess.Popen([sys.executable, "-m", "fakekube", "serve", "--no-controllers", "--ready-file", str(ready)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        _wait_for(ready, proc)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(15) == 0
        assert not ready.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_kubeconfig_is_written_only_once_the_actors_are_up(tmp_path):
    import argparse
    import threading

    from fakekube.server import cli as server_cli

    parser = argparse.ArgumentParser()
    server_cli.add_arguments(parser)
    kubeconfig = tmp_path / "kubeconfig"
    args = parser.parse_args(["--kubeconfig", str(kubeconfig)])
    seen = []

    def before_serve(store, server):
        seen.append(kubeconfig.exists())  # the actors start here: no kubeconfig may exist yet
        threading.Timer(0.2, server.shutdown).start()

    codes = []  # run from another thread, which installs no signal handlers in the test process
    thread = threading.Thread(target=lambda: codes.append(server_cli.run(args, before_serve=before_serve)))
    thread.start()
    thread.join(30)
    assert codes == [0]
    assert seen == [False] and kubeconfig.exists()
