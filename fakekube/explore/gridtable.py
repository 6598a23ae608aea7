"""Grid tables: which perturbations an exploration tries when the caller names none, as data.

A :class:`Grid` is a small declarative table — axes (a grid key, its values, why those values), the seeds
each point runs, and how the axes combine:

- ``mode="all"``: every combination (the cartesian product, the last axis varying fastest);
- ``mode="each"``: the baseline (every axis at its first value), then each other value of each axis alone —
  for tables too big to multiply out.

A value ``None`` means "as the scenario's model has it" and leaves the key out of the point, so the baseline
point of a table whose first values are the model's is the unperturbed run. Tables load from TOML or JSON
(``fakekube explore --grid FILE``; TOML has no null, so the string ``"model"`` stands for None there) and
:meth:`Grid.to_toml` writes one back (``--show-grid``). docs/explore.md says why each default range is what
it is.
"""

from __future__ import annotations

import itertools
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .grid import Point, _short

MODEL = "model"  # how a file writes "as the model has it" (None)
MODES = ("all", "each")


@dataclass(frozen=True)
class Axis:
    key: str
    values: tuple[Any, ...]
    why: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))
        if not self.values:
            raise ValueError(f"grid axis {self.key!r} has no values")

    def describe(self) -> str:
        return f"{self.key} " + ",".join(MODEL if v is None else _short(v) for v in self.values)


@dataclass(frozen=True)
class Grid:
    """A grid table: axes, the seeds every point runs, and how the axes combine (``all`` or ``each``)."""

    name: str
    axes: tuple[Axis, ...] = ()
    seeds: str = "1-10"
    mode: str = "all"
    source: str = ""  # where the ranges come from (a doc section)

    def __post_init__(self) -> None:
        object.__setattr__(self, "axes", tuple(self.axes))
        if self.mode not in MODES:
            raise ValueError(f"grid mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        keys = [a.key for a in self.axes]
        if len(set(keys)) != len(keys):
            raise ValueError(f"grid {self.name!r} names an axis twice: {', '.join(keys)}")

    # -- points -----------------------------------------------------------------------------------------

    def points(self) -> list[Point]:
        """The table's points in a fixed order (None values left out of each point)."""
        if not self.axes:
            return [{}]
        keys = [a.key for a in self.axes]
        if self.mode == "all":
            combos = list(itertools.product(*(a.values for a in self.axes)))
        else:
            base = tuple(a.values[0] for a in self.axes)
            combos = [base]
            for i, axis in enumerate(self.axes):
                combos += [base[:i] + (v,) + base[i + 1:] for v in axis.values[1:]]
        points: list[Point] = []
        for combo in combos:
            point = {k: v for k, v in zip(keys, combo, strict=True) if v is not None}
            if point not in points:
                points.append(point)
        return points

    def with_axis(self, key: str, values: list[Any] | tuple[Any, ...], why: str = "given on the command line",
                  *, front: bool = False) -> Grid:
        """This table with ``key``'s values replaced (or the axis added: at the end, or ``front``)."""
        axes = list(self.axes)
        new = Axis(key, tuple(values), why)
        for i, axis in enumerate(axes):
            if axis.key == key:
                axes[i] = new
                return replace(self, axes=tuple(axes))
        return replace(self, axes=(new, *axes) if front else (*axes, new))

    def describe(self) -> str:
        """One line: ``name: all 24 points of cache_lag_scale 1,2,4 × commit_point model,0.5 ...``."""
        how = "all" if self.mode == "all" else "one axis at a time:"
        joiner = " × " if self.mode == "all" else " · "
        axes = joiner.join(a.describe() for a in self.axes) or "no axes"
        n = len(self.points())
        return f"{self.name}: {how} {n} point{'s' if n != 1 else ''} of {axes}"

    # -- files ------------------------------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], name: str = "grid") -> Grid:
        known = {"name", "axis", "axes", "seeds", "mode", "source"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"grid {name}: unknown key {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        axes = []
        for item in data.get("axis", data.get("axes", [])):
            if not isinstance(item, Mapping) or "key" not in item or "values" not in item:
                raise ValueError(f"grid {name}: every axis needs a key and values, not {item!r}")
            values = tuple(None if v == MODEL else v for v in item["values"])
            axes.append(Axis(str(item["key"]), values, str(item.get("why", ""))))
        seeds = data.get("seeds", "1-10")
        return cls(str(data.get("name", name)), tuple(axes), str(seeds), str(data.get("mode", "all")),
                   str(data.get("source", "")))

    @classmethod
    def load(cls, path: str | Path) -> Grid:
        """A table from a TOML file (``.toml``) or a JSON one (anything else)."""
        path = Path(path)
        text = path.read_text()
        try:
            data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
        except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"grid {path}: {exc}") from None
        if not isinstance(data, Mapping):
            raise ValueError(f"grid {path}: expected a table of name, seeds, mode and axes")
        return cls.from_dict(data, path.stem)

    def to_toml(self) -> str:
        """The table as a TOML file that :meth:`load` reads back (each axis's reason as a comment)."""
        lines = [f"# {self.describe()}", f"name = {_toml(self.name)}", f"seeds = {_toml(self.seeds)}",
                 f"mode = {_toml(self.mode)}"]
        if self.source:
            lines.append(f"source = {_toml(self.source)}")
        for axis in self.axes:
            lines += ["", "[[axis]]"]
            lines += [f"key = {_toml(axis.key)}", f"values = [{', '.join(_toml(v) for v in axis.values)}]"]
            if axis.why:
                lines.append(f"why = {_toml(axis.why)}")
        return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if value is None:
        return json.dumps(MODEL)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} {value!r} into a grid file")


# The table for a scenario that registers none. Its ranges are relative to the scenario's own model (scales
# and the model's own values), taken from the one fitted model the project has (docs/explore.md, "The default
# grid", says why each range is what it is).
DEFAULT_GRID = Grid(
    "default",
    (
        Axis("cache_lag_scale", (1, 2, 4),
             "informer lag: the model's watch delay, doubled while it stays within what the fitted model's own "
             "evidence allows (the fit's commit-point refits x0.8-1.8; the CPU model's peak wait at the PR's "
             "load x6.6)"),
        Axis("commit_point", (None, 0.5),
             "where the commit falls in a write's round trip: not measurable from a timeline; the model's own "
             "(the fit assumes 0.9) and the middle, the other end of the range the fit was checked over"),
        Axis("workers", (None, 1),
             "MaxConcurrentReconciles: the scenario's own counts and controller-runtime's default, 1"),
    ),
    seeds="1-10",
    source="docs/explore.md#the-default-grid",
)
