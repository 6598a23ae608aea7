"""``fakekube serve``'s cluster options: a flag that cannot act with --no-controllers says so on stderr."""

from __future__ import annotations

import socket

import pytest

from fakekube.cli import main


@pytest.mark.parametrize(("flags", "named"), [
    (["--nodes", "3"], "--nodes does nothing"),
    (["--pod-start-latency", "2", "--fail-image", "x=CrashLoopBackOff"], "--pod-start-latency, --fail-image do nothing"),
    ([], None),
])
def test_cluster_flags_with_no_controllers_are_a_warning(flags, named, capsys):
    with socket.socket() as busy:            # serve stops once it cannot listen, after its checks
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        assert main(["serve", "--no-controllers", "--port", str(busy.getsockname()[1]), *flags]) == 1
    err = capsys.readouterr().err
    if named:
        assert f"fakekube serve: warning: {named} with --no-controllers" in err
    else:
        assert "warning" not in err
