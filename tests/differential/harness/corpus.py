"""The corpus: hand-written cases in ``corpus/*.yaml`` and cases made by ``generators/*.py`` (``cases()``).

Every case is checked for shape when it is loaded, with errors that name its file and case, so a typo in a
case fails the run at once instead of recording a wrong answer. The shape is documented in the README.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import importlib.util
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = ROOT / "corpus"
GENERATORS_DIR = ROOT / "generators"

# The areas of issue 24's corpus; every case names one, so counts per area can be reported.
AREAS = (
    "verbs",            # get/list/create/update/patch/delete/deletecollection on every kind
    "patch",            # JSON, merge and strategic merge patch
    "apply",            # server-side apply, conflicts and force
    "subresources",     # status and scale
    "generation",       # metadata.generation
    "finalizers",       # finalizers and deletionTimestamp
    "gc",               # garbage collection: background, foreground, orphan
    "namespaces",       # namespace termination
    "watch",            # watch from a resourceVersion, bookmarks, 410 Gone
    "paging",           # limit/continue, resourceVersionMatch
    "selectors",        # label and field selectors
    "dryrun",
    "fieldvalidation",  # Ignore / Warn / Strict
    "defaults",         # defaulting of built-ins and CRD schemas
    "validation",       # validation errors of built-ins and CRD schemas
    "crd",              # CustomResourceDefinitions and their custom resources
    "protobuf",
    "malformed",        # malformed input: wrong types, truncated bodies, deep nesting, non-JSON YAML
    "query",            # bad query parameters
    "names",            # bad names
    "discovery",        # unknown groups, versions, resources; discovery documents
    "authn",            # authentication, and what anonymous requests may do
    "fuzz",             # hypothesis-drawn requests
)
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
STEP_KEYS = {"method", "path", "query", "headers", "accept", "contentType", "body", "raw", "rawBase64", "credentials",
             "watch", "wait"}
CASE_KEYS = {"name", "area", "steps", "setup", "skip_live"}
TEMPLATE = re.compile(r"\{(rv|uid|name|continue|listrv):(s?)(\d+)\}")


class CorpusError(ValueError):
    """A case that does not have the documented shape."""


@dataclass(frozen=True)
class Case:
    name: str
    area: str
    steps: list[dict[str, Any]]
    setup: list[dict[str, Any]] = field(default_factory=list)
    skip_live: str | None = None
    source: str = ""  # the file the case came from, for messages

    @property
    def digest(self) -> str:
        """Changes whenever the requests do: a recording made for other requests is stale."""
        text = json.dumps({"setup": self.setup, "steps": self.steps}, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def literals(self) -> set[str]:
        """Every string the case itself writes (before substitution): values the client chose, which the
        normaliser leaves alone (a time or uid the case sent is compared, not masked)."""
        found: set[str] = set()
        for step in [*self.setup, *self.steps]:
            _strings(step, found)
        return found


def _strings(value: Any, into: set[str]) -> None:
    if isinstance(value, str):
        into.add(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            into.add(str(key))
            _strings(item, into)
    elif isinstance(value, list):
        for item in value:
            _strings(item, into)


def validate(raw: Any, source: str) -> Case:
    """A ``Case`` from a dict in the README's shape, or a ``CorpusError`` naming the source and case."""
    if not isinstance(raw, dict):
        raise CorpusError(f"{source}: a case must be a mapping, not {type(raw).__name__}")
    name = raw.get("name")
    where = f"{source}: case {name!r}"
    if not isinstance(name, str) or not name:
        raise CorpusError(f"{source}: a case without a name: {str(raw)[:200]}")
    unknown = set(raw) - CASE_KEYS
    if unknown:
        raise CorpusError(f"{where}: unknown keys {sorted(unknown)} (known: {sorted(CASE_KEYS)})")
    if raw.get("area") not in AREAS:
        raise CorpusError(f"{where}: area {raw.get('area')!r} is not one of {', '.join(AREAS)}")
    steps, setup = raw.get("steps"), raw.get("setup", [])
    if not isinstance(steps, list) or not steps:
        raise CorpusError(f"{where}: steps must be a non-empty list")
    if not isinstance(setup, list):
        raise CorpusError(f"{where}: setup must be a list")
    for prefix, group in (("s", setup), ("", steps)):
        for index, step in enumerate(group):
            _validate_step(step, f"{where}: {'setup' if prefix else 'step'} {index}", index, prefix, len(setup))
    skip = raw.get("skip_live")
    if skip is not None and (not isinstance(skip, str) or not skip):
        raise CorpusError(f"{where}: skip_live must be a reason (a string)")
    return Case(name, raw["area"], steps, setup, skip, source)


def _validate_step(step: Any, where: str, index: int, prefix: str, setup_count: int) -> None:
    if not isinstance(step, dict):
        raise CorpusError(f"{where}: a step must be a mapping")
    unknown = set(step) - STEP_KEYS
    if unknown:
        raise CorpusError(f"{where}: unknown keys {sorted(unknown)} (known: {sorted(STEP_KEYS)})")
    if step.get("method") not in METHODS:
        raise CorpusError(f"{where}: method {step.get('method')!r} is not one of {', '.join(METHODS)}")
    path = step.get("path")
    if not isinstance(path, str) or not path.startswith("/") or "?" in path:
        raise CorpusError(f"{where}: path must be a string starting with / (query parameters go in query)")
    if sum(k in step for k in ("body", "raw", "rawBase64")) > 1:
        raise CorpusError(f"{where}: give at most one of body, raw and rawBase64")
    for key in ("raw", "rawBase64", "accept", "contentType"):
        if key in step and not isinstance(step[key], str):
            raise CorpusError(f"{where}: {key} must be a string")
    query = step.get("query", {})
    if not isinstance(query, dict) or not all(
            isinstance(v, str | int | bool) or (isinstance(v, list) and all(isinstance(i, str | int) for i in v))
            for v in query.values()):
        raise CorpusError(f"{where}: query must map names to strings, numbers, booleans or lists of them")
    headers = step.get("headers", {})
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise CorpusError(f"{where}: headers must map names to strings")
    if step.get("credentials", "anonymous") != "anonymous":
        raise CorpusError(f"{where}: credentials can only be anonymous (no certificate, no token)")
    watch, wait = step.get("watch"), step.get("wait")
    if watch is None and step["method"] == "GET" and watches(query):
        raise CorpusError(f"{where}: a watch request needs watch: {{events: K, timeout: S}} (a stream has no end)")
    if watch is not None:
        if not isinstance(watch, dict) or set(watch) - {"events", "timeout"} or \
                not isinstance(watch.get("events"), int) or watch["events"] < 0 or \
                not isinstance(watch.get("timeout", 5), int | float) or not 0 < watch.get("timeout", 5) <= 60:
            raise CorpusError(f"{where}: watch must be {{events: K, timeout: S}} with 0 < S <= 60")
        if step["method"] != "GET" or not (watches(query) or "/watch/" in path):
            raise CorpusError(f"{where}: a watch step is a GET with watch=true in its query")
    if wait is not None:
        # A dry-run write may be repeated too: what admission decides (a policy the real server enforces only
        # once its informers saw it) is awaited that way, and a dry run changes nothing however often it runs.
        dry_run = step["method"] != "GET" and query.get("dryRun") == "All"
        if watch is not None or (step["method"] != "GET" and not dry_run):
            raise CorpusError(f"{where}: wait is for a GET that is not a watch, or a write with dryRun: All")
        if not isinstance(wait, dict) or set(wait) - {"until", "condition", "reason", "present", "absent", "timeout"} or \
                not isinstance(wait.get("until"), int) or \
                not isinstance(wait.get("timeout", 30), int | float) or not 0 < wait.get("timeout", 30) <= 120 or \
                not all(isinstance(wait.get(k, "x"), str) and wait.get(k, "x") for k in ("condition", "reason", "present", "absent")) \
                or ("reason" in wait and "condition" not in wait):
            raise CorpusError(f"{where}: wait must be {{until: STATUS, condition: TYPE, reason: R, present: PATH, "
                              "absent: PATH, timeout: S}} with S <= 120 (a reason only with its condition)")
    for match in TEMPLATE.finditer(json.dumps(step)):
        ref_setup, ref = match.group(2) == "s", int(match.group(3))
        limit = index if ref_setup == bool(prefix) else (setup_count if ref_setup else -1)
        if ref >= limit:
            raise CorpusError(f"{where}: {match.group(0)} refers to a step that has not run before this one")


def load_file(path: Path) -> list[Case]:
    try:
        # libyaml's loader when PyYAML has it: the same documents, parsed ten times faster.
        documents = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        raise CorpusError(f"{path.name}: not YAML: {exc}") from exc
    if not isinstance(documents, list):
        raise CorpusError(f"{path.name}: a corpus file is a list of cases")
    return [validate(item, path.name) for item in documents]


def load_generator(path: Path) -> list[Case]:
    spec = importlib.util.spec_from_file_location(f"differential_generators.{path.stem}", path)
    if spec is None or spec.loader is None:
        raise CorpusError(f"{path.name}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    make = getattr(module, "cases", None)
    if not callable(make):
        raise CorpusError(f"{path.name}: a generator module defines cases() -> list[dict]")
    made = make()
    if not isinstance(made, list):
        raise CorpusError(f"{path.name}: cases() returned {type(made).__name__}, not a list")
    return [validate(item, path.name) for item in made]


def load(directory: Path = CORPUS_DIR, generators: Path | None = GENERATORS_DIR) -> list[Case]:
    """Every case, hand-written files first then generators, each in file order; names must be unique.
    Loaded once per process while no file changes (the replay, live and generator tests each ask)."""
    files = [*sorted(directory.glob("*.yaml")),
             *(sorted(generators.glob("*")) if generators is not None and generators.is_dir() else [])]
    stamp = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files if f.is_file())
    return list(_load(directory, generators, stamp))


@functools.lru_cache(maxsize=4)
def _load(directory: Path, generators: Path | None, stamp: tuple[tuple[str, int, int], ...]) -> tuple[Case, ...]:
    """``stamp``: the files' names, times and sizes, so an edited corpus is read again."""
    cases: list[Case] = []
    for path in sorted(directory.glob("*.yaml")):
        cases.extend(load_file(path))
    if generators is not None and generators.is_dir():
        for path in sorted(generators.glob("*.py")):
            if not path.name.startswith("_"):
                cases.extend(load_generator(path))
    seen: dict[str, str] = {}
    for case in cases:
        if case.name in seen:
            raise CorpusError(f"{case.source}: case {case.name!r} is also defined in {seen[case.name]}")
        seen[case.name] = case.source
    return tuple(cases)


# Areas whose cases wait for the real namespace controller (a namespace's deletion): they run before the
# others, whose cleanups (every case deletes its namespace) would queue hundreds of namespace deletions ahead
# of theirs on the controller's ten workers (measured: past the cases' 60 s waits in a whole-corpus run).
FIRST_AREAS = ("namespaces",)


def in_run_order(items: Iterable[str]) -> list[str]:
    """Areas (or anything with the area as its sort key) with FIRST_AREAS first, the rest sorted."""
    return sorted(items, key=lambda area: (area not in FIRST_AREAS, area))


def run_order(cases: Iterable[Case]) -> list[Case]:
    """The cases with those of FIRST_AREAS first, otherwise in corpus order."""
    return sorted(cases, key=lambda case: case.area not in FIRST_AREAS)


def select(cases: Iterable[Case], patterns: Iterable[str]) -> list[Case]:
    """The cases whose name matches any of the glob patterns (all of them when there is none)."""
    patterns = list(patterns)
    return [c for c in cases if not patterns or any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]


def watches(query: dict[str, Any]) -> bool:
    """Whether a GET with this query is a watch: the server decodes ``watch`` as every bool query parameter,
    true for any value but "0" and "false" in any case, "" and "yes" included (apimachinery
    pkg/runtime/conversion.go, Convert_Slice_string_To_bool, v0.37.2); a list's first value counts."""
    if "watch" not in query:
        return False
    value = query["watch"]
    if isinstance(value, list):
        if not value:
            return False
        value = value[0]
    if isinstance(value, bool):
        return value
    return not (str(value) == "0" or str(value).lower() == "false")
