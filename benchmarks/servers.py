"""Two API servers as processes, for side-by-side benchmarks: the real control plane of the oracle
(``scripts/build-oracle``) and ``fakekube serve``, both over TLS on loopback, each with its own credentials
(the oracle's client-certificate admin, fakekube's bearer token).

Boot time is measured the same way for both: from the process start until a GET of the default
ServiceAccount answers 200, the point at which a test can start creating pods.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
READY_PATH = "/api/v1/namespaces/default/serviceaccounts/default"
# The actors the oracle runs, by fakekube's names: garbage collection, the default ServiceAccount, the
# kube-root-ca.crt ConfigMap (namespace deletion is part of fakekube's store).
FAKEKUBE_CONTROLLERS = "serviceaccount,garbagecollector,root-ca-cert-publisher"


@dataclass
class Served:
    """A running server: where it is, how to reach it, and how long it took to boot."""

    name: str
    host: str
    port: int
    context: ssl.SSLContext
    headers: dict[str, str] = field(default_factory=dict)
    boot_seconds: float = 0.0

    def connect(self, timeout: float = 30.0) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=timeout)

    def call(self, conn: http.client.HTTPSConnection, method: str, path: str, body: Any = None,
             content_type: str = "application/json") -> tuple[int, bytes]:
        headers = dict(self.headers)
        payload = None
        if body is not None:
            payload = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = content_type
        conn.request(method, path, body=payload, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _context_from_kubeconfig(path: Path, scratch: Path) -> tuple[ssl.SSLContext, dict[str, str]]:
    """An SSL context and headers carrying a kubeconfig's first user's credentials."""
    config = yaml.safe_load(path.read_text())
    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    ca = scratch / "ca.crt"
    ca.write_bytes(base64.b64decode(cluster["certificate-authority-data"]))
    context = ssl.create_default_context(cafile=str(ca))
    headers: dict[str, str] = {}
    if "client-certificate-data" in user:
        cert, key = scratch / "client.crt", scratch / "client.key"
        cert.write_bytes(base64.b64decode(user["client-certificate-data"]))
        key.write_bytes(base64.b64decode(user["client-key-data"]))
        context.load_cert_chain(str(cert), str(key))
    if "token" in user:
        headers["Authorization"] = f"Bearer {user['token']}"
    return context, headers


def _wait_for_file(path: Path, process: subprocess.Popen[bytes], log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if process.poll() is not None:
            raise RuntimeError(f"exited with {process.returncode}: {log.read_text(errors='replace')[-2000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{path} not written after {timeout:.0f}s")
        time.sleep(0.01)


def _wait_for_ready(served: Served, deadline: float) -> None:
    while True:
        try:
            conn = served.connect(timeout=2)
            status, _ = served.call(conn, "GET", READY_PATH)
            conn.close()
            if status == 200:
                return
        except (OSError, http.client.HTTPException):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{served.name} did not answer {READY_PATH} in time")
        time.sleep(0.01)


@contextmanager
def _process(command: list[str], name: str, kubeconfig: Path, scratch: Path,
             timeout: float) -> Iterator[Served]:
    log = scratch / f"{name}.log"
    started = time.monotonic()
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True)
    try:
        _wait_for_file(kubeconfig, process, log, timeout)
        context, headers = _context_from_kubeconfig(kubeconfig, scratch)
        server = yaml.safe_load(kubeconfig.read_text())["clusters"][0]["cluster"]["server"]
        host, port = server.removeprefix("https://").rsplit(":", 1)
        served = Served(name, host, int(port), context, headers)
        _wait_for_ready(served, started + timeout)
        served.boot_seconds = time.monotonic() - started
        yield served
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@contextmanager
def real_apiserver(timeout: float = 180.0) -> Iterator[Served]:
    """The oracle's control plane; raises FileNotFoundError when it is not built."""
    binary = Path(os.environ.get("FAKEKUBE_ORACLE_BIN", REPO / "oracle" / "bin"))
    binary = binary / "oracle" if binary.is_dir() else binary
    if not binary.exists():
        raise FileNotFoundError(f"{binary}: build it with scripts/build-oracle")
    scratch = Path(tempfile.mkdtemp(prefix="bench-oracle-"))
    kubeconfig = scratch / "kubeconfig"
    try:
        command = [str(binary), "--dir", str(scratch / "data"), "--kubeconfig", str(kubeconfig)]
        with _process(command, "kube-apiserver", kubeconfig, scratch, timeout) as served:
            yield served
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@contextmanager
def fakekube_serve(timeout: float = 60.0) -> Iterator[Served]:
    """``fakekube serve --tls`` with the oracle's set of controllers and no nodes."""
    scratch = Path(tempfile.mkdtemp(prefix="bench-fakekube-"))
    kubeconfig = scratch / "kubeconfig"
    try:
        command = [str(Path(sys.executable).with_name("fakekube")), "serve", "--tls", "--token", "bench",
                   "--port", str(_free_port()), "--kubeconfig", str(kubeconfig), "--nodes", "0",
                   "--controllers", FAKEKUBE_CONTROLLERS]
        with _process(command, "fakekube", kubeconfig, scratch, timeout) as served:
            yield served
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
