"""``fakekube simulate``: options that cannot act in a combination say so on stderr (checked without a run)."""

from __future__ import annotations

import pytest

from fakekube.agentsandbox import simulate
from fakekube.cli import build_parser


@pytest.mark.parametrize(("argv", "warning"), [
    (["--timeline-claim", "sandboxclaim-4"], "--timeline-claim does nothing here: only seed-timeline prints"),
    (["--scenario", "seed-timeline", "--timeline-claim", "sandboxclaim-4"], None),
    (["--scenario", "seed-timeline", "--expected-table", "2"], "--expected-table does nothing here"),
])
def test_flags_that_cannot_act_are_warned_about(argv, warning, capsys):
    simulate._warnings(build_parser().parse_args(["simulate", *argv]))
    err = capsys.readouterr().err
    if warning:
        assert err.startswith(f"fakekube simulate: warning: {warning}")
    else:
        assert err == ""
