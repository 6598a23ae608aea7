"""The Python examples in the docs run: each page's blocks are executed in order in one namespace, and every
``test_*`` function they define is called with fresh fixtures."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from fakekube.resources import load_manifests as parse_manifests
from fakekube.store import Store

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = ["quickstart.md", "audit-and-faults.md"]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def _fixtures() -> dict[str, Any]:
    kube = Store()

    def load(source: Any) -> list[dict[str, Any]]:
        kube.load_crds(source)
        rest = [d for d in parse_manifests(source) if d.get("kind") != "CustomResourceDefinition"]
        return kube.load(rest) if rest else []

    return {"kube": kube, "load_manifests": load, "kube_factory": Store}


@pytest.mark.parametrize("page", PAGES)
def test_examples_run(page: str) -> None:
    namespace: dict[str, Any] = {"__name__": f"docs_{page}"}
    blocks = BLOCK.findall((DOCS / page).read_text())
    assert blocks, f"{page} has no python examples"
    for block in blocks:
        exec(compile(block, f"{page}", "exec"), namespace)
    tests = [fn for name, fn in namespace.items() if name.startswith("test_") and callable(fn)]
    for fn in tests:
        fixtures = _fixtures()
        fn(**{p: fixtures[p] for p in inspect.signature(fn).parameters})
