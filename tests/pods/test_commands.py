"""The built-in commands of a fake container, run without a server (``ExecRegistry.run``)."""

from __future__ import annotations

import base64
import io
import tarfile
from typing import Any

from fakekube.pods.execution import ExecRegistry
from fakekube.pods.process import Input

POD: dict[str, Any] = {
    "metadata": {"name": "web-0", "namespace": "shop", "uid": "u1", "labels": {"app": "web"}},
    "spec": {
        "nodeName": "n1",
        "containers": [{
            "name": "main",
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "$(A)-x"},
                    {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                    {"name": "PASS", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "password"}}}],
            "envFrom": [{"configMapRef": {"name": "settings"}, "prefix": "CFG_"}],
            "volumeMounts": [{"name": "settings", "mountPath": "/etc/settings"},
                             {"name": "creds", "mountPath": "/run/creds"},
                             {"name": "info", "mountPath": "/etc/podinfo"}],
        }],
        "volumes": [{"name": "settings", "configMap": {"name": "settings"}},
                    {"name": "creds", "secret": {"secretName": "creds"}},
                    {"name": "info", "downwardAPI": {"items": [
                        {"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}}],
    },
}
OBJECTS = {
    ("configmaps", "settings"): {"data": {"mode": "fast"}},
    ("secrets", "creds"): {"data": {"password": base64.b64encode(b"s3cret").decode()}},
}


def lookup(plural: str, name: str) -> Any:
    return OBJECTS.get((plural, name))


def run(registry: ExecRegistry, *command: str, stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    out, err = bytearray(), bytearray()
    proc = registry.process(POD, "main", list(command), lookup, write_stdout=out.extend, write_stderr=err.extend,
                            stdin=Input(stdin or b"", closed=True))
    return registry.run(proc), bytes(out), bytes(err)


def test_echo_true_false_and_exit_codes() -> None:
    r = ExecRegistry()
    assert run(r, "echo", "hi", "there") == (0, b"hi there\n", b"")
    assert run(r, "true")[0] == 0 and run(r, "false")[0] == 1
    assert run(r, "sh", "-c", "exit 3")[0] == 3
    assert run(r, "/bin/sh", "-c", "false || echo fallback && echo and; echo seq")[1] == b"fallback\nand\nseq\n"
    assert run(r, "sh", "-c", "echo out; echo err >&2") == (0, b"out\n", b"err\n")


def test_unknown_command_is_the_runtimes_answer() -> None:
    code, out, _ = run(ExecRegistry(), "nosuch", "arg")
    assert code == 126
    assert out == (b'OCI runtime exec failed: exec failed: unable to start container process: exec: "nosuch": '
                   b"executable file not found in $PATH: unknown\r\n")
    assert run(ExecRegistry(), "sh", "-c", "nosuch") == (127, b"", b"sh: nosuch: not found\n")


def test_environment_from_the_pod_spec() -> None:
    code, out, _ = run(ExecRegistry(), "env")
    env = dict(line.split("=", 1) for line in out.decode().splitlines())
    assert env["A"] == "1" and env["B"] == "1-x" and env["POD"] == "web-0" and env["PASS"] == "s3cret"
    assert env["CFG_mode"] == "fast" and env["HOSTNAME"] == "web-0"
    assert run(ExecRegistry(), "sh", "-c", 'echo "$A and ${B}" \'$A\'')[1] == b"1 and 1-x $A\n"


def test_mounted_config_maps_secrets_and_downward_api() -> None:
    r = ExecRegistry()
    assert run(r, "cat", "/etc/settings/mode")[1] == b"fast"
    assert run(r, "cat", "/run/creds/password")[1] == b"s3cret"
    assert run(r, "cat", "/etc/podinfo/labels")[1] == b'app="web"'
    assert run(r, "ls", "/etc/settings")[1] == b"mode\n"
    assert run(r, "cat", "/etc/hostname")[1] == b"web-0\n"
    assert run(r, "cat", "/nope") == (1, b"", b"cat: /nope: No such file or directory\n")


def test_files_persist_per_container_and_redirections() -> None:
    r = ExecRegistry()
    assert run(r, "sh", "-c", "echo one > /tmp/f; echo two >> /tmp/f")[0] == 0
    assert run(r, "cat", "/tmp/f")[1] == b"one\ntwo\n"
    assert run(r, "sh", "-c", "cat < /tmp/f | wc -l")[1] == b"2\n"
    assert run(r, "sh", "-c", "test -f /tmp/f && echo file; test -d /tmp/f || echo notdir")[1] == b"file\nnotdir\n"


def test_stdin_dd_and_sleep() -> None:
    r = ExecRegistry()
    assert run(r, "cat", stdin=b"piped")[1] == b"piped"
    code, out, err = run(r, "dd", "if=/dev/zero", "bs=1k", "count=3")
    assert code == 0 and out == bytes(3072) and err.startswith(b"3+0 records in")
    assert len(run(r, "dd", "if=/dev/urandom", "bs=10", "count=2")[1]) == 20
    assert run(r, "sleep", "0.01")[0] == 0


def test_tar_round_trip_as_kubectl_cp_does() -> None:
    r = ExecRegistry()
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        for name, data in (("src/a.txt", b"A"), ("src/sub/b.txt", b"B")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    assert run(r, "mkdir", "-p", "/data")[0] == 0
    assert run(r, "tar", "-xmf", "-", "-C", "/data", stdin=archive.getvalue())[0] == 0
    assert run(r, "cat", "/data/src/sub/b.txt")[1] == b"B"
    code, out, err = run(r, "tar", "cf", "-", "/data/src")
    assert code == 0 and err == b"tar: Removing leading `/' from member names\n"
    with tarfile.open(fileobj=io.BytesIO(out)) as tar:
        assert sorted(tar.getnames()) == ["data/src", "data/src/a.txt", "data/src/sub", "data/src/sub/b.txt"]


def test_a_registered_handler_wins_for_its_containers() -> None:
    r = ExecRegistry()

    def handler(proc: Any) -> int:
        proc.stdout(f"handled {proc.command} in {proc.pod_name}/{proc.container}\n")
        return 9

    remove = r.on_exec(handler, labels={"app": "web"}, container="main")
    assert run(r, "echo", "x") == (9, b"handled ['echo', 'x'] in web-0/main\n", b"")
    remove()
    assert run(r, "echo", "x") == (0, b"x\n", b"")


def test_for_loops_and_command_substitution() -> None:
    r = ExecRegistry()
    assert run(r, "sh", "-c", "for i in $(seq 1 3); do echo n$i; done; echo end")[1] == b"n1\nn2\nn3\nend\n"
    assert run(r, "sh", "-c", 'echo "$(printf "a  b")" $(printf "c  d")')[1] == b"a  b c d\n"
    code, out, _ = run(r, "sh", "-c", "echo -n data | gzip | gzip -d")
    assert (code, out) == (0, b"data")
