"""The shell of fake containers (``fakekube.pods.shell`` + ``interpreter``), judged against the host's dash: each
script here uses only what both have, runs in both, and must print the same and end with the same status."""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import pytest

from fakekube.pods.commands import Session
from fakekube.pods.execution import ExecRegistry
from fakekube.pods.interpreter import IO, Shell, Wait, run_sync
from fakekube.pods.process import Input

POD: dict[str, Any] = {"metadata": {"name": "p", "namespace": "default", "uid": "u1"},
                       "spec": {"containers": [{"name": "main", "image": "busybox"}]}}

SCRIPTS = [
    "i=0; while [ $i -lt 3 ]; do echo tick $i; i=$((i+1)); done",
    "n=3; until [ $n -eq 0 ]; do printf '%s\\n' $n; n=$((n - 1)); done; echo liftoff",
    "for x in a 'b c' \"d e\"; do echo \"[$x]\"; done",
    "for i in 1 2 3 4 5; do if [ $i -eq 2 ]; then continue; fi; if [ $i -eq 4 ]; then break; fi; echo $i; done",
    "if false; then echo a; elif true; then echo b; else echo c; fi",
    "case hello.txt in *.yaml) echo yaml;; *.txt|*.md) echo text;; *) echo other;; esac",
    "f() { echo \"f got $1 and $#\"; return 3; }; f one two; echo status $?",
    "x=outer; y=$(x=inner; echo $x); echo $x $y",
    "v=\"a  b\"; printf '<%s>' $v; echo; printf '<%s>' \"$v\"; echo",
    "echo ${UNSET:-default} ${UNSET-d2} ${#HOME_LIKE} ; A=file.tar.gz; echo ${A%.gz} ${A%%.*} ${A#*.} ${A##*.}",
    "echo $((3 + 4 * 2)) $(( (1 + 2) * 3 )) $((7 / 2)) $((7 % 3)) $((2 > 1)) $((1 && 0))",
    "false; echo $?; true && echo yes || echo no; false && echo yes || echo no",
    "! false && echo negated",
    "{ echo one; echo two; } | wc -l",
    "(exit 4); echo subshell $?; (X=in); echo \"[$X]\"",
    "set -e; echo before; false; echo after",
    "set -- a b c; shift; echo $# $1 $@",
    "echo `echo back` quotes",
    "cat <<EOF\nline $((1+1))\n  kept\nEOF\necho end",
    "cat <<'EOF'\nno $expansion\nEOF",
    "exit 7",
    "echo 'unterminated",
    "if true; then echo x",
    "echo a; exit 3; echo b",
    "X=1; X=2 sh -c 'exit 0'; echo $X",
    "while true; do echo once; break; done; echo out",
    "for i in 1 2; do for j in a b c; do [ $j = b ] && continue 2; echo $i$j; done; done; echo end",
    "for i in 1 2; do while :; do echo $i; break 2; done; echo never; done; echo end $?",
    "i=0; while :; do i=$((i+1)); [ $i -ge 3 ] && break; done; echo $i",
    "echo one > /tmp/f; echo two >> /tmp/f; cat /tmp/f; cat < /tmp/f | wc -l",
    "echo err 1>&2; echo out 2>/dev/null",
]


def fake(script: str) -> tuple[int, str, str]:
    out, err = bytearray(), bytearray()
    proc = ExecRegistry().process(POD, "main", ["sh", "-c", script], lambda p, n: None, write_stdout=out.extend,
                                  write_stderr=err.extend, stdin=Input(closed=True))
    code = ExecRegistry().run(proc)
    return code, out.decode(), err.decode()


@pytest.mark.skipif(shutil.which("dash") is None, reason="needs dash on the host")
@pytest.mark.parametrize("script", SCRIPTS)
def test_the_shell_agrees_with_dash(script: str) -> None:
    real = subprocess.run(["dash", "-c", script], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"},
                          cwd="/", timeout=10)
    code, out, err = fake(script)
    assert code == real.returncode and out == real.stdout
    if "Syntax error" in real.stderr:
        assert "Syntax error" in err  # dash names the line and the token; the wording may differ slightly
    else:
        assert err == real.stderr


def test_sleep_is_a_wait_the_driver_decides() -> None:
    proc = ExecRegistry().process(POD, "main", [], lambda p, n: None)
    out = bytearray()
    run = Shell(Session(proc)).script("echo a; sleep 5; echo b; sleep 1m; tail -f /dev/null",
                                      IO(None, out.extend, out.extend))
    assert next(run) == Wait(5.0) and out == b"a\n"
    assert run.send(None) == Wait(60.0) and out == b"a\nb\n"
    assert run.send(None) == Wait(None)  # tail -f waits until the process is stopped
    with pytest.raises(StopIteration):
        run.send(None)


def test_a_loop_that_never_sleeps_is_paced() -> None:
    proc = ExecRegistry().process(POD, "main", [], lambda p, n: None)
    run = Shell(Session(proc)).script("while true; do :; done", IO(None, lambda d: None, lambda d: None))
    assert next(run) == Wait(0.001)  # it yields, so the loop it runs on goes on
    run.close()


def test_an_exec_sleep_ends_when_the_client_leaves() -> None:
    proc = ExecRegistry().process(POD, "main", [], lambda p, n: None)
    proc.gone.set()
    out = bytearray()
    assert run_sync(Shell(Session(proc)).script("echo a; sleep 100; echo b", IO(None, out.extend, out.extend)),
                    proc) == 0
    assert out == b"a\n"
