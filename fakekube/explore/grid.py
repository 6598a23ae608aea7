"""Seeds and grids: which runs an exploration makes, in a fixed order.

A grid maps a key to its values; its points are the cartesian product, keys varying in the order given
(the last key fastest). Runs are ordered point by point, then seed by seed: run ``i`` is always the same
run, however many processes share the work.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any

Point = dict[str, Any]


def parse_seeds(spec: str | int | Iterable[int]) -> list[int]:
    """``"1-500"``, ``"1,4,9-12"``, an int, or any iterable of ints → the seeds in order, without repeats."""
    if isinstance(spec, int):
        return [spec]
    if not isinstance(spec, str):
        seeds = [int(s) for s in spec]
    else:
        seeds = []
        for part in filter(None, (p.strip() for p in spec.split(","))):
            low, sep, high = part.partition("-")
            try:
                if sep:
                    first, last = int(low), int(high)
                    if last < first:
                        raise ValueError
                    seeds.extend(range(first, last + 1))
                else:
                    seeds.append(int(part))
            except ValueError:
                raise ValueError(f"bad seed range {part!r} in {spec!r}: use N, N-M or a comma list") from None
    if not seeds:
        raise ValueError("no seeds to explore")
    return list(dict.fromkeys(seeds))


def describe_seeds(seeds: list[int]) -> str:
    """The inverse of :func:`parse_seeds`, compact: ``[1, 2, 3, 7]`` → ``"1-3,7"``."""
    parts: list[str] = []
    run_start = prev = None
    for seed in [*seeds, None]:
        if seed is not None and prev is not None and seed == prev + 1:
            prev = seed
            continue
        if run_start is not None:
            parts.append(str(run_start) if run_start == prev else f"{run_start}-{prev}")
        run_start = prev = seed
    return ",".join(parts)


def grid_points(grid: Mapping[str, Any] | None) -> list[Point]:
    """Every point of the grid; a value that is not a list or tuple is an axis of one value."""
    if not grid:
        return [{}]
    axes = [(key, list(values) if isinstance(values, list | tuple | range) else [values])
            for key, values in grid.items()]
    for key, values in axes:
        if not values:
            raise ValueError(f"grid axis {key!r} has no values")
    keys = [k for k, _ in axes]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(v for _, v in axes))]


def describe_point(point: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={_short(v)}" for k, v in point.items()) or "(defaults)"


def _short(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "[" + ";".join(_short(v) for v in value) + "]"
    describe = getattr(value, "describe", None)
    return describe() if callable(describe) else str(value)


def shard(items: list[Any], spec: str | None) -> list[Any]:
    """The share of ``items`` of shard ``I/N`` (1-based): every N-th item starting at the I-th."""
    if not spec:
        return items
    index, total = parse_shard(spec)
    return items[index - 1::total]


def parse_shard(spec: str) -> tuple[int, int]:
    index_text, sep, total_text = spec.partition("/")
    try:
        index, total = int(index_text), int(total_text)
    except ValueError:
        index = total = 0
    if not sep or total < 1 or not 1 <= index <= total:
        raise ValueError(f"bad shard {spec!r}: use I/N with 1 <= I <= N, e.g. 2/4")
    return index, total
