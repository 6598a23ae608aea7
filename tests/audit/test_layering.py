"""fakekube.audit is core: importing it loads nothing of the layers above, and the old imports still work."""

from __future__ import annotations

import subprocess
import sys

ABOVE = ("fakekube.sim", "fakekube.server", "fakekube.cluster", "fakekube.explore", "fakekube.agentsandbox")


def test_the_audit_package_imports_nothing_above_the_core() -> None:
    code = ("import sys, fakekube.audit, fakekube.audit.svg, fakekube.audit.table; "
            f"print([m for m in sys.modules if m.startswith({ABOVE!r})])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_fakekube_sim_re_exports_the_timeline() -> None:
    import fakekube.audit
    import fakekube.audit.svg
    from fakekube.sim import Timeline
    from fakekube.sim.svg import swimlanes
    from fakekube.sim.timeline import GREEN, Row, color

    assert Timeline is fakekube.audit.Timeline and Row is fakekube.audit.Row
    assert swimlanes is fakekube.audit.svg.swimlanes
    assert color(201) == GREEN
