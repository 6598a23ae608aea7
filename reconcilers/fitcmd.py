"""``fakekube fit SOURCE``: a cluster model's timing, estimated from a PR-style table or an audit log.

SOURCE is a file: kube-apiserver's audit log (JSON lines, or a JSON list / EventList; gzipped when it ends in
.gz), or text with Markdown or tab-separated tables in PR #508's layout (Delta since step 1) — ``--table N``
picks the N-th table (the first by default). A table's rows are described by the agent-sandbox story roles
(``fakekube.agentsandbox.roles.describe_steps``); an audit log needs nothing but itself. The method is
``fakekube.sim.fit``'s (docs/simulation.md, "Fitting a model"). The model is written as JSON (stdout, or
``-o FILE``) for ``fakekube simulate --model FILE``.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

from fakekube.agentsandbox.roles import describe_steps
from fakekube.audit import Timeline
from fakekube.clihelp import examples
from fakekube.sim.fit import DEFAULT_COMMIT_AT, fit_audit_log, fit_timeline
from fakekube.sim.model import ClusterModel

# The model the seed scenarios run with: `fakekube fit pr-508.md --table 1` on
# /work/shared/reference/pr-508.md (PR #508's first table, as its author posted it). A test refits it.
PR508_MODEL = Path(__file__).with_name("pr508-table1.model.json")


DESCRIPTION = """\
Estimate a cluster timing model (request round trips, the commit point, informer lag, pod start) from
evidence: a PR-style timeline table (Markdown or tab-separated, Delta (ms) since step 1, as PR #508's) or a
kube-apiserver audit log (JSON lines or a JSON list; .gz too). The model is JSON, for
`fakekube simulate --model FILE`. See docs/simulation.md, "Fitting a model"."""

EXAMPLES = examples(
    "fakekube fit pr-timeline.md --table 2 -o model.json   # the second table of a pasted PR description",
    "fakekube fit audit.log.gz -o model.json                # a real cluster's audit log",
    "fakekube simulate --scenario seed-timeline --model model.json",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="a PR-style timeline (Markdown or TSV tables) or an audit log (JSON)")
    parser.add_argument("--table", type=int, default=1, help="which table of the source to fit (1-based)")
    parser.add_argument("--commit-at", type=float, default=DEFAULT_COMMIT_AT,
                        help=f"fraction of a round trip before the commit (default {DEFAULT_COMMIT_AT})")
    parser.add_argument("-o", "--output", default=None, metavar="FILE",
                        help="write the model to FILE (default: stdout)")


def tables(text: str) -> list[str]:
    """The table blocks of a document: runs of lines that start with ``|``, or of tab-separated lines."""
    blocks: list[list[str]] = []
    current: list[str] = []
    kind = ""
    for line in text.splitlines():
        this = "md" if line.lstrip().startswith("|") else "tsv" if "\t" in line else ""
        if this and this == kind:
            current.append(line)
            continue
        if current:
            blocks.append(current)
        current, kind = ([line], this) if this else ([], "")
    if current:
        blocks.append(current)
    return ["\n".join(b) + "\n" for b in blocks if len(b) >= 2]


def is_audit_log(text: str) -> bool:
    return text.lstrip()[:1] in ("{", "[")


def fit_source(path: str | Path, *, table: int = 1, commit_at: float = DEFAULT_COMMIT_AT
               ) -> tuple[ClusterModel, list[str]]:
    """The model ``fakekube fit`` writes for ``path``, and warnings about lines it skipped."""
    path = Path(path)
    # A gzipped audit log, as `fakekube audit` reads them (real clusters' logs are kept rotated and compressed).
    text = gzip.decompress(path.read_bytes()).decode() if path.suffix == ".gz" else path.read_text()
    if is_audit_log(text):
        return fit_audit_log(text, commit_at=commit_at, source=f"{path.name} (audit log)")
    found = tables(text)
    if not found:
        raise ValueError(f"{path}: no table in PR #508's layout and not an audit log")
    if not 1 <= table <= len(found):
        raise ValueError(f"{path}: --table {table}, but the file has {len(found)} table(s)")
    rows = Timeline.parse(found[table - 1]).rows
    return fit_timeline(rows, describe_steps, commit_at=commit_at, source=f"{path.name} table {table}"), []


def run(args: argparse.Namespace) -> int:
    try:
        model, problems = fit_source(args.source, table=args.table, commit_at=args.commit_at)
    except (OSError, ValueError) as exc:
        print(f"fakekube fit: {exc}", file=sys.stderr)
        return 2
    for problem in problems:
        print(f"fakekube fit: skipped {problem}", file=sys.stderr)
    if args.output:
        Path(args.output).write_text(model.to_json())
    else:
        sys.stdout.write(model.to_json())
    return 0


def pr508_model() -> ClusterModel:
    """The packaged model fitted from PR #508's first table (the seed scenarios' default)."""
    return ClusterModel.load(PR508_MODEL)
