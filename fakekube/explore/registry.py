"""Named scenarios and invariants, for the CLI, the pytest marker and written reproducers.

fakekube.explore knows no controller. Packages fill the registry through the ``fakekube.explore`` entry-point
group: each entry point names a ``register(registry)`` function (agent-sandbox's is
``fakekube.agentsandbox.explore:register``). A scenario or invariant can also be named by import path,
``package.module:attribute``, without registering it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from .gridtable import DEFAULT_GRID, Grid
from .invariants import GENERIC, Invariant

ENTRY_POINT_GROUP = "fakekube.explore"
Scenario = Callable[..., Any]


@dataclass(frozen=True)
class Param:
    """A parameter a scenario takes from the grid (``--claim-status`` on the command line)."""

    name: str
    default: Any = None
    choices: tuple[Any, ...] | None = None
    type: Callable[[str], Any] = str
    help: str = ""

    def check(self, value: Any) -> Any:
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{self.name} must be one of {', '.join(map(str, self.choices))}, not {value!r}")
        return value


@dataclass(frozen=True)
class ScenarioSpec:
    name: str
    fn: Scenario
    params: tuple[Param, ...] = ()
    invariants: tuple[str, ...] = ()  # checked when the caller names none
    description: str = ""
    grid: Grid | None = None  # the perturbations tried when the caller names none (None: DEFAULT_GRID)

    @property
    def default_grid(self) -> Grid:
        return self.grid if self.grid is not None else DEFAULT_GRID

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """Defaults filled in; unknown names and values out of their choices are errors (declared params only)."""
        if not self.params:
            return dict(params)
        unknown = sorted(set(params) - {p.name for p in self.params})
        if unknown:
            raise ValueError(f"scenario {self.name!r} takes no parameter {', '.join(unknown)} "
                             f"(it takes {', '.join(p.name for p in self.params)})")
        return {p.name: p.check(params[p.name]) for p in self.params if p.name in params}


class Registry:
    def __init__(self) -> None:
        self.scenarios: dict[str, ScenarioSpec] = {}
        self.invariants: dict[str, Invariant] = {inv.name: inv for inv in GENERIC}
        self._loaded = False

    def scenario(self, name: str, fn: Scenario, *, params: Iterable[Param] = (), invariants: Iterable[str] = (),
                 description: str = "", grid: Grid | None = None) -> ScenarioSpec:
        spec = ScenarioSpec(name, fn, tuple(params), tuple(invariants), description or (fn.__doc__ or "").strip(),
                            grid)
        self.scenarios[name] = spec
        return spec

    def invariant(self, name: str, check: Callable[..., Any], description: str = "") -> Invariant:
        inv = Invariant(name, check, description or (check.__doc__ or "").strip().split("\n")[0])
        self.invariants[name] = inv
        return inv

    def load(self) -> Registry:
        """Run every ``fakekube.explore`` entry point's ``register(registry)`` (once)."""
        if not self._loaded:
            self._loaded = True
            for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
                ep.load()(self)
        return self

    # -- lookups --------------------------------------------------------------------------------------

    def get_scenario(self, ref: str | Scenario | ScenarioSpec) -> ScenarioSpec:
        if isinstance(ref, ScenarioSpec):
            return ref
        if callable(ref):
            return ScenarioSpec(_import_path(ref) or getattr(ref, "__name__", "scenario"), ref)
        self.load()
        if ref in self.scenarios:
            return self.scenarios[ref]
        if ":" in ref:
            target = _import(ref)
            return target if isinstance(target, ScenarioSpec) else ScenarioSpec(ref, target)
        known = ", ".join(sorted(self.scenarios)) or "none registered"
        raise KeyError(f"unknown scenario {ref!r} (known: {known}; or give package.module:function)")

    def get_invariant(self, ref: str | Invariant | Callable[..., Any]) -> Invariant:
        if isinstance(ref, Invariant):
            return ref
        if callable(ref):
            return Invariant(getattr(ref, "__name__", "invariant").replace("_", "-"), ref,
                             (ref.__doc__ or "").strip().split("\n")[0])
        self.load()
        if ref in self.invariants:
            return self.invariants[ref]
        if ":" in ref:
            target = _import(ref)
            return self.get_invariant(target)
        raise KeyError(f"unknown invariant {ref!r} (known: {', '.join(sorted(self.invariants))})")

    def invariants_for(self, spec: ScenarioSpec, refs: Iterable[str | Invariant | Callable[..., Any]] | None
                       ) -> list[Invariant]:
        chosen = list(refs) if refs is not None else list(spec.invariants)
        return [self.get_invariant(r) for r in chosen]


def _import(path: str) -> Any:
    module, _, attr = path.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _import_path(fn: Callable[..., Any]) -> str | None:
    """``module:qualname`` when that path imports back to ``fn`` (so a written test can replay it)."""
    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
    if not module or "<" in qualname or module == "__main__":
        return None
    try:
        return f"{module}:{qualname}" if _import(f"{module}:{qualname}") is fn else None
    except (ImportError, AttributeError):
        return None


REGISTRY = Registry()
