"""Run every Python example in docs/patches/*.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "patches"
BLOCKS = [
    pytest.param(block, id=f"{page.name}-{i}")
    for page in sorted(DOCS.glob("*.md"))
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), re.S))
]


@pytest.mark.parametrize("block", BLOCKS)
def test_doc_example_runs(block: str) -> None:
    exec(compile(block, "<doc>", "exec"), {})


def test_every_patch_type_has_a_page() -> None:
    for page in ("README.md", "json-patch.md", "merge-patch.md", "strategic-merge-patch.md",
                 "server-side-apply.md", "side-by-side.md"):
        assert (DOCS / page).exists(), page
