"""The real kubectl's exec and cp against ``kube_server`` (kubectl 1.30+ streams over WebSocket v5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakekube.server.fixtures import KubeServer
from fakekube.store import Store
from tests.server.test_pod_exec import run_pod

pytestmark = pytest.mark.slow


def test_exec_output_exit_codes_and_stdin(kubectl, kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    assert kubectl("exec", "p1", "--", "echo", "hi").stdout == "hi\n"
    failed = kubectl("exec", "p1", "--", "sh", "-c", "exit 3", check=False)
    assert failed.code == 3 and "command terminated with exit code 3" in failed.stderr
    assert kubectl("exec", "-i", "p1", "--", "cat", input="from stdin\n").stdout == "from stdin\n"
    missing = kubectl("exec", "p1", "--", "nosuch", check=False)
    assert missing.code == 126
    assert 'exec: "nosuch": executable file not found in $PATH' in missing.stdout


def test_exec_refusals(kubectl, kube: Store, kube_server: KubeServer) -> None:
    run_pod(kube)
    run_pod(kube, "stopped", running=False)
    bad = kubectl("exec", "p1", "-c", "nope", "--", "ls", check=False)
    assert bad.code == 1 and "container nope is not valid for pod p1" in bad.stderr
    stopped = kubectl("exec", "stopped", "--", "ls", check=False)
    assert stopped.code == 1
    assert 'unable to upgrade connection: container not found ("c")' in stopped.stderr


def test_cp_both_ways(kubectl, kube: Store, kube_server: KubeServer, tmp_path: Path) -> None:
    run_pod(kube)
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "a.txt").write_text("A\n")
    (src / "sub" / "b.txt").write_text("B\n")
    kubectl("cp", str(src), "p1:/tmp/dst")
    assert kubectl("exec", "p1", "--", "cat", "/tmp/dst/sub/b.txt").stdout == "B\n"
    back = tmp_path / "back"
    kubectl("cp", "p1:/tmp/dst", str(back))
    assert (back / "a.txt").read_text() == "A\n" and (back / "sub" / "b.txt").read_text() == "B\n"


def test_exec_with_a_terminal(kube: Store, kube_server: KubeServer) -> None:
    import shutil
    import subprocess

    kubectl, script = shutil.which("kubectl"), shutil.which("script")
    if kubectl is None or script is None:
        pytest.skip("needs kubectl and script(1) for a pseudo-terminal")
    run_pod(kube)
    done = subprocess.run([script, "-qec", f"{kubectl} exec -it p1 -- sh", "/dev/null"], input="echo hello\rexit 4\r",
                          capture_output=True, text=True, timeout=30, env=kube_server.env)
    assert done.returncode == 4
    lines = done.stdout.splitlines()
    assert "hello" in lines and "# command terminated with exit code 4" in lines
