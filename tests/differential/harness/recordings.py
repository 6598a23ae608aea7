"""Recordings: the real server's comparable answers, one JSON line per case, in ``recordings/<source>.jsonl``.

The first line is a header (format, source, the server's version); then one line per case, sorted by name,
``{"name", "digest", "setup", "answers"}``. Keys are sorted and separators fixed, so recording the same
corpus twice gives the same bytes (scripts/record-oracle --check verifies it) and a diff shows one line per
changed case.

Independent of fakekube: the harness judges fakekube, so it never imports it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RECORDINGS_DIR = Path(__file__).resolve().parent.parent / "recordings"
FORMAT = 1


@dataclass
class Recording:
    header: dict[str, Any]
    cases: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def kubernetes_version(self) -> str | None:
        """"1.37" from the recorded server's version, the release fakekube emulates to replay it."""
        version = self.header.get("serverVersion") or {}
        major, minor = version.get("major"), str(version.get("minor", "")).rstrip("+")
        return f"{major}.{minor}" if major and minor else None


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def line_for(name: str, digest: str, setup: list[int], answers: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": name, "digest": digest, "setup": setup, "answers": answers}


def write(path: Path, recording: Recording) -> None:
    lines = [dumps({**recording.header, "format": FORMAT})]
    lines.extend(dumps(recording.cases[name]) for name in sorted(recording.cases))
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".jsonl.tmp")
    temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
    temporary.replace(path)


def read(path: Path) -> Recording:
    with path.open(encoding="utf-8") as handle:
        lines = [json.loads(text) for text in handle if text.strip()]
    if not lines or lines[0].get("format") != FORMAT:
        raise ValueError(f"{path}: not a recording of format {FORMAT} (re-run scripts/record-oracle)")
    return Recording(lines[0], {item["name"]: item for item in lines[1:]})


def sources(directory: Path = RECORDINGS_DIR) -> list[Path]:
    return sorted(directory.glob("*.jsonl"))
