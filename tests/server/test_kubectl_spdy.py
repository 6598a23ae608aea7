"""The real kubectl over SPDY/3.1, every release the Google Cloud SDK ships (kubectl.1.27 ... kubectl.1.33 beside
gcloud): exec, stdin, a TTY and cp over plain SPDY (the default before 1.30; KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false
after), and port-forward as each release does it by default (SPDY before 1.31, SPDY tunnelled in a WebSocket
from 1.31) and with KUBECTL_PORT_FORWARD_WEBSOCKETS=false (plain SPDY), to the built-in nginx responder and to an
``on_port_forward`` handler."""

from __future__ import annotations

import glob
import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from fakekube.pods.portforward import PortConnection
from fakekube.server.fixtures import KubeServer
from fakekube.store import Store
from tests.server.test_pod_exec import run_pod

pytestmark = pytest.mark.slow


def _sdk_kubectls() -> list[str]:
    gcloud = shutil.which("gcloud")
    folders = [str(Path(os.path.realpath(gcloud)).parent)] if gcloud else []
    folders.append("/usr/lib/google-cloud-sdk/bin")
    found = {Path(p).name: p for folder in folders for p in glob.glob(f"{folder}/kubectl.1.*")}
    return [found[name] for name in sorted(found, key=lambda n: int(n.rsplit(".", 1)[1]))]


KUBECTLS = _sdk_kubectls()
VERSIONS = [pytest.param(path, id=Path(path).name) for path in KUBECTLS] or [
    pytest.param("", marks=pytest.mark.skip(reason="no kubectl.1.X beside gcloud (Google Cloud SDK)"))]


def minor(binary: str) -> int:
    return int(binary.rsplit(".", 1)[1])


def run(binary: str, server: KubeServer, *args: str, input: str | None = None,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([binary, *args], input=input, capture_output=True, text=True, timeout=30,
                          env={**server.env, **(env or {})})


@pytest.mark.parametrize("binary", VERSIONS)
def test_exec_over_spdy(binary: str, kube: Store, kube_server: KubeServer, tmp_path: Path) -> None:
    run_pod(kube)
    spdy = {"KUBECTL_REMOTE_COMMAND_WEBSOCKETS": "false"}  # before 1.30 SPDY is the only way anyway
    out = run(binary, kube_server, "exec", "p1", "--", "sh", "-c", "echo out; echo err >&2", env=spdy)
    assert (out.returncode, out.stdout, out.stderr) == (0, "out\n", "err\n")
    failed = run(binary, kube_server, "exec", "p1", "--", "sh", "-c", "exit 3", env=spdy)
    assert failed.returncode == 3 and "command terminated with exit code 3" in failed.stderr
    typed = run(binary, kube_server, "exec", "-i", "p1", "--", "cat", input="from stdin\n", env=spdy)
    assert typed.stdout == "from stdin\n"
    (tmp_path / "notes.txt").write_text("copied\n")
    assert run(binary, kube_server, "cp", str(tmp_path / "notes.txt"), "p1:/tmp/notes.txt", env=spdy).returncode == 0
    assert run(binary, kube_server, "exec", "p1", "--", "cat", "/tmp/notes.txt", env=spdy).stdout == "copied\n"
    back = run(binary, kube_server, "cp", "p1:/tmp/notes.txt", str(tmp_path / "back.txt"), env=spdy)
    assert back.returncode == 0 and (tmp_path / "back.txt").read_text() == "copied\n"
    script = shutil.which("script")
    if script is not None:  # -t needs a terminal: script(1) gives kubectl one
        done = subprocess.run([script, "-qec", f"{binary} exec -it p1 -- sh", "/dev/null"],
                              input="echo hello\rexit 4\r", capture_output=True, text=True, timeout=30,
                              env={**kube_server.env, **spdy})
        assert done.returncode == 4 and "hello" in done.stdout.splitlines()
    run_pod(kube, "stopped", running=False)  # the kubelet's refusal, before the upgrade
    stopped = run(binary, kube_server, "exec", "stopped", "--", "ls", env=spdy)
    assert stopped.returncode == 1 and 'unable to upgrade connection: container not found ("c")' in stopped.stderr
    kube.pod_exec.on_attach(lambda proc: proc.stdout("from the main process\n"), pod="p1")
    attached = run(binary, kube_server, "attach", "p1", env=spdy)
    assert attached.returncode == 0 and "from the main process" in attached.stdout


class PortForward:
    """``kubectl port-forward pod/p1 :PORT`` running until the test ends."""

    def __init__(self, binary: str, server: KubeServer, port: int, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([binary, "port-forward", "pod/p1", f":{port}", "--address", "127.0.0.1"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**server.env, **env})
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        match = re.match(r"Forwarding from 127\.0\.0\.1:(\d+) ->", line)
        assert match, f"kubectl port-forward said {line!r}: {self.stop()}"
        self.local = int(match.group(1))

    def request(self, payload: bytes) -> bytes:
        with socket.create_connection(("127.0.0.1", self.local), timeout=10) as sock:
            sock.sendall(payload)
            sock.shutdown(socket.SHUT_WR)
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
            return data

    def stop(self) -> str:
        self.proc.terminate()
        _, err = self.proc.communicate(timeout=10)
        return err


@pytest.mark.parametrize("websockets", [True, False], ids=["default", "spdy"])
@pytest.mark.parametrize("binary", VERSIONS)
def test_port_forward(binary: str, websockets: bool, kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube, image="nginx")

    def redis(conn: PortConnection) -> None:
        while data := conn.recv():
            if data.startswith(b"PING"):
                conn.send(b"+PONG\r\n")

    kube.on_port_forward(redis, port=6379)
    env = {} if websockets else {"KUBECTL_PORT_FORWARD_WEBSOCKETS": "false"}
    nginx = PortForward(binary, kube_server, 80, env)
    try:
        for _ in range(2):  # each connection is a new stream pair on the same SPDY connection
            reply = nginx.request(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert reply.startswith(b"HTTP/1.1 200 OK\r\nServer: nginx") and b"Welcome to nginx!" in reply
    finally:
        nginx.stop()
    cache = PortForward(binary, kube_server, 6379, env)
    try:
        assert cache.request(b"PING\r\n") == b"+PONG\r\n"
    finally:
        cache.stop()
    refused = PortForward(binary, kube_server, 81, env)
    try:
        assert refused.request(b"GET / HTTP/1.1\r\n\r\n") == b""
    finally:
        err = refused.stop()
    assert "error forwarding port 81 to pod" in err and "connection refused" in err


def test_the_sdk_kubectls_are_there() -> None:
    """Says which releases the table above covered (none: the SDK is missing, every row skipped)."""
    if not KUBECTLS:
        pytest.skip("no Google Cloud SDK kubectl releases")
    assert [minor(k) for k in KUBECTLS] == sorted(minor(k) for k in KUBECTLS)


