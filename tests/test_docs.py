"""The Python examples in the docs run, and the links between the docs resolve.

README.md and every page under docs/ (docs/patches/ has its own runner in tests/patch/test_docs.py) are
collected here. A
page's ```python blocks are executed in order in one namespace; every ``test_*`` function they define
becomes its own test item and is called with fixtures asked from pytest (``request.getfixturevalue``), so
it gets exactly what a user's test would get: ``kube``, ``sim``, ``kube_server``, ``agent_sandbox_env``...
Fixtures the page itself defines (``@pytest.fixture``) are registered for that item only, so a page can
show how to override a plugin fixture (``sim_options``) or add an autouse one.

A block that is deliberately not runnable says so in its fence: ```python fragment. Any other fence whose
info string starts with ``py`` is an error, so no example is skipped silently.

Each block stands alone (its own imports and definitions), so a reader can copy any one of them. A page whose
blocks tell one story says so in a line readers see, ONE_PROGRAM; only then may a block use a name that only an
earlier block of the page defines (``test_blocks_stand_alone_or_the_page_says_otherwise``). Shell blocks run in
tests/test_docs_shell.py.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
OWN_RUNNER = DOCS / "patches"          # tests/patch/test_docs.py
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.S | re.M)
RUNNABLE, FRAGMENT = "python", "python fragment"
TEST_DEF = re.compile(r"^(?:async\s+)?def\s+(test_\w+)\s*\(", re.M)


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if OWN_RUNNER not in p.parents)]


def _blocks(page: Path) -> list[str]:
    """The runnable blocks, each padded with blank lines so tracebacks show the page's line numbers."""
    text = page.read_text()
    return ["\n" * text.count("\n", 0, m.start(2)) + m.group(2)
            for m in FENCE.finditer(text) if m.group(1).strip() == RUNNABLE]


def _cases() -> list[Any]:
    cases = []
    for page in _pages():
        blocks = _blocks(page)
        if not blocks:
            continue
        name = page.relative_to(ROOT).as_posix()
        tests = list(dict.fromkeys(TEST_DEF.findall("\n".join(blocks))))
        for test in tests or [None]:
            cases.append(pytest.param(page, test, id=f"{name}::{test}" if test else name))
    return cases


def _run_page(page: Path) -> dict[str, Any]:
    name = page.relative_to(ROOT).as_posix()
    namespace: dict[str, Any] = {"__name__": f"docs.{name}"}
    for block in _blocks(page):
        exec(compile(block, str(page), "exec"), namespace)
    return namespace


ONE_PROGRAM = ("The Python blocks on this page are one program: run them top to bottom (later blocks use names "
               "and files the earlier ones made).")


def _names(block: str) -> tuple[set[str], set[str]]:
    """(names the block binds anywhere, names it reads anywhere): enough to see what it takes from outside."""
    bound, used = set(), set()
    for node in ast.walk(ast.parse(block)):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, used


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_blocks_stand_alone_or_the_page_says_otherwise(page: Path) -> None:
    if ONE_PROGRAM in " ".join(page.read_text().split()):
        return
    earlier: set[str] = set()
    for i, block in enumerate(_blocks(page)):
        bound, used = _names(block)
        borrowed = (used - bound - set(dir(builtins))) & earlier
        assert not borrowed, (f"{page.name}: python block {i + 1} uses {sorted(borrowed)} from an earlier block; "
                              f"import or define them in it, or say on the page: {ONE_PROGRAM}")
        earlier |= bound


def _fixture_marker(obj: Any) -> Any:
    """The FixtureFunctionMarker of a ``@pytest.fixture`` object (pytest >= 8.4 and older), else None."""
    return getattr(obj, "_fixture_function_marker", None) or getattr(obj, "_pytestfixturefunction", None)


def _register_fixtures(request: pytest.FixtureRequest, holder: types.ModuleType) -> None:
    """Register ``holder``'s fixtures for this item: pytest >= 9 takes the node, older ones its id (deprecated
    in 9, removed in 10)."""
    manager = request._fixturemanager
    try:
        manager.parsefactories(holder=holder, node=request.node)
    except TypeError:
        manager.parsefactories(holder, request.node.nodeid)


def _call(namespace: dict[str, Any], test: str, request: pytest.FixtureRequest) -> None:
    fn = namespace[test]
    # Fixtures defined on the page apply to this item only (registered under its node id), overriding the
    # plugins' fixtures of the same name, as they would in the user's test module.
    fixtures = {k: v for k, v in namespace.items() if _fixture_marker(v) is not None}
    if fixtures:
        holder = types.ModuleType(f"docs_fixtures_{test}")
        holder.__dict__.update(fixtures)
        _register_fixtures(request, holder)
        for name, obj in fixtures.items():
            if _fixture_marker(obj).autouse:
                request.getfixturevalue(name)
    kwargs = {p: request.getfixturevalue(p) for p in inspect.signature(fn).parameters}
    result = fn(**kwargs)
    assert not inspect.iscoroutine(result), f"{test} is async; wrap it in asyncio.run() in the doc"


@pytest.mark.parametrize(("page", "test"), _cases())
def test_example(page: Path, test: str | None, request: pytest.FixtureRequest, tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)          # files an example writes (an SVG, a kubeconfig) land here
    namespace = _run_page(page)
    if test is not None:
        _call(namespace, test, request)


def test_page_fixtures_override_plugin_fixtures(request: pytest.FixtureRequest) -> None:
    """The runner's own check: a page's ``sim_options`` reaches the plugin's ``sim``; autouse fixtures run."""
    seen: list[str] = []

    @pytest.fixture
    def sim_options() -> dict[str, Any]:
        return {"seed": 3, "kubelet": False}

    @pytest.fixture(autouse=True)
    def _setup() -> None:
        seen.append("autouse")

    def test_it(sim: Any) -> None:
        seen.append(f"seed={sim.options['seed']}")

    _call({"sim_options": sim_options, "_setup": _setup, "test_it": test_it}, "test_it", request)
    assert seen == ["autouse", "seed=3"]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_python_fences_are_runnable_or_marked(page: Path) -> None:
    """A Python block is either run (```python) or explicitly a fragment (```python fragment)."""
    for info, _ in FENCE.findall(page.read_text()):
        info = info.strip()
        if info.lower().startswith("py"):
            assert info in (RUNNABLE, FRAGMENT), f"{page.name}: fence ```{info} is neither run nor marked"


# --- links -------------------------------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _link_sources() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("source", _link_sources(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(source: Path) -> None:
    text = FENCE.sub("", source.read_text())           # links inside code blocks are not links
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
            continue                                    # http:, https:, mailto:, in-page anchors
        path = target.split("#", 1)[0]
        if not (source.parent / path).exists():
            broken.append(target)
    assert not broken, f"{source.relative_to(ROOT)}: broken links {broken}"
