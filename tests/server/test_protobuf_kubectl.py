"""The oracle for the protobuf decoder: the bytes kubectl's generators send decode to the object kubectl
prints with ``--dry-run=client -o json`` (the JSON it would have sent).

One server for the module; the request bodies are captured where the HTTP front hands them to the verb.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fakekube.resources import ResourceType
from fakekube.server import rest
from fakekube.server.fixtures import KubeServer, _start
from fakekube.server.protobuf import MEDIA_TYPE, default_codec
from fakekube.server.tls import make_certificates
from fakekube.store import Store

KUBECTL = shutil.which("kubectl")
pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")

class Captured:
    def __init__(self) -> None:
        self.bodies: list[tuple[str, str | None, bytes]] = []

    def last_protobuf(self) -> bytes:
        found = [body for method, ctype, body in self.bodies if ctype == MEDIA_TYPE and method in ("POST", "PUT")]
        assert found, f"no protobuf body among {[(m, c) for m, c, _ in self.bodies]}"
        return found[-1]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KubeServer, Captured, Path]]:
    store = Store()
    captured = Captured()
    original = rest.serve

    def capture(req: rest.Request, rt: ResourceType, verb: str) -> Any:
        captured.bodies.append((req.method, req.content_type, req.body))
        return original(req, rt, verb)

    rest.serve = capture  # the handler calls rest.serve through the module
    directory = tmp_path_factory.mktemp("protobuf-oracle")
    server = _start(store, directory / "server")
    files = directory / "files"
    files.mkdir()
    (files / "env.txt").write_text("A=1\nB=two\n# a comment\n")
    (files / "config.json").write_text('{"k": "v"}\n')
    certs = make_certificates(("example.com",))
    (files / "tls.crt").write_bytes(certs.cert_pem)
    (files / "tls.key").write_bytes(certs.key_pem)
    try:
        yield server, captured, files
    finally:
        rest.serve = original
        server.server.stop()


def kubectl(server: KubeServer, *args: str) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    return subprocess.run([KUBECTL, *args], capture_output=True, text=True, env=server.env, timeout=60)


def generators(files: Path) -> list[tuple[str, list[str]]]:
    return [
        ("namespace", ["create", "namespace", "demo"]),
        ("configmap", ["create", "configmap", "cm", "--from-literal=a=1", "--from-literal=empty=",
                       f"--from-file=config.json={files / 'config.json'}"]),
        ("configmap-env", ["create", "configmap", "cm-env", f"--from-env-file={files / 'env.txt'}"]),
        ("secret-generic", ["create", "secret", "generic", "s", "--from-literal=user=admin", "--type=Opaque"]),
        ("secret-tls", ["create", "secret", "tls", "tls", f"--cert={files / 'tls.crt'}", f"--key={files / 'tls.key'}"]),
        ("secret-docker-registry", ["create", "secret", "docker-registry", "reg", "--docker-server=r.example.com",
                                    "--docker-username=u", "--docker-password=p", "--docker-email=e@example.com"]),
        ("serviceaccount", ["create", "serviceaccount", "robot"]),
        ("deployment", ["create", "deployment", "web", "--image=nginx:1.27", "--replicas=3", "--port=8080"]),
        ("deployment-zero", ["create", "deployment", "idle", "--image=nginx", "--replicas=0"]),
        ("job", ["create", "job", "once", "--image=busybox", "--", "echo", "hi"]),
        ("cronjob", ["create", "cronjob", "tick", "--image=busybox", "--schedule=*/5 * * * *", "--", "date"]),
        ("role", ["create", "role", "reader", "--verb=get,list", "--resource=pods,configmaps"]),
        ("rolebinding", ["create", "rolebinding", "read", "--role=reader", "--user=alice", "--serviceaccount=default:robot"]),
        ("clusterrole", ["create", "clusterrole", "nodes", "--verb=get", "--resource=nodes",
                         "--non-resource-url=/healthz"]),
        ("clusterrolebinding", ["create", "clusterrolebinding", "nodes", "--clusterrole=nodes", "--group=ops"]),
        ("poddisruptionbudget", ["create", "poddisruptionbudget", "pdb", "--selector=app=web", "--min-available=50%"]),
        ("priorityclass", ["create", "priorityclass", "high", "--value=1000", "--description=important"]),
        ("priorityclass-zero", ["create", "priorityclass", "zero", "--value=0"]),
        ("quota", ["create", "quota", "q", "--hard=cpu=1,memory=1Gi,pods=10", "--scopes=NotBestEffort"]),
        ("ingress", ["create", "ingress", "ing", "--rule=foo.example.com/bar*=svc:8080,tls=secret"]),
        ("service-clusterip", ["create", "service", "clusterip", "svc", "--tcp=80:8080"]),
        ("service-nodeport", ["create", "service", "nodeport", "np", "--tcp=80:8080", "--node-port=30080"]),
    ]


CASES = [name for name, _ in generators(Path("."))]


@pytest.mark.parametrize("name", CASES)
def test_generator_bytes_decode_to_what_kubectl_would_send_as_json(served, name):
    server, captured, files = served
    args = dict(generators(files))[name]
    cut = args.index("--") if "--" in args else len(args)  # flags go before a command's own arguments
    dry = kubectl(server, *args[:cut], "--dry-run=client", "-o", "json", *args[cut:])
    assert dry.returncode == 0, dry.stderr
    expected = json.loads(dry.stdout)
    captured.bodies.clear()
    created = kubectl(server, *args)
    assert created.returncode == 0, created.stderr
    decoded = default_codec().decode(captured.last_protobuf())
    assert decoded == expected


@pytest.mark.parametrize("args", [
    ["run", "pod1", "--image=nginx", "--labels=app=pod1", "--env=A=1", "--port=80"],
    ["expose", "deployment", "web", "--port=80", "--target-port=8080", "--name=exposed"],
], ids=["run", "expose"])
def test_run_and_expose_send_json(served, args):
    """kubectl 1.32 builds these through its dynamic client: JSON bodies, the same object as the dry run."""
    server, captured, _ = served
    if args[0] == "expose" and not server.store.objects("deployments", "default"):
        assert kubectl(server, "create", "deployment", "web", "--image=nginx", "--port=80").returncode == 0
    expected = json.loads(kubectl(server, *args, "--dry-run=client", "-o", "json").stdout)
    captured.bodies.clear()
    made = kubectl(server, *args)
    assert made.returncode == 0, made.stderr
    posts = [(ctype, body) for method, ctype, body in captured.bodies if method == "POST"]
    assert [ctype for ctype, _ in posts] == ["application/json"]
    assert json.loads(posts[0][1]) == expected
