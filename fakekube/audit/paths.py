"""Paths into an object (leaf granularity, lists whole) and what changed between two versions: the vocabulary of
stale-overwrite detection, shared by the simulation's commit hook (``fakekube.sim.stale``) and the audit-log
judge (``fakekube.audit.overwrites``).

``metadata.resourceVersion``, ``metadata.generation`` and ``metadata.managedFields`` are bookkeeping and are
ignored. A merge patch replaces lists whole, so a list is one leaf.
"""

from __future__ import annotations

from typing import Any

Path = tuple[str, ...]
IGNORED: tuple[Path, ...] = (("metadata", "resourceVersion"), ("metadata", "generation"),
                             ("metadata", "managedFields"))


def render_path(path: Path) -> str:
    out = []
    for part in path:
        if "." in part or "/" in part or not part:
            out.append(f"[{part}]")
        else:
            out.append(("." if out else "") + part)
    return "".join(out)


def _key_tree(paths: tuple[Path, ...]) -> dict[str, Any]:
    """``paths`` as a tree of keys: a key mapped to None ends an ignored path, a dict holds longer ones."""
    tree: dict[str, Any] = {}
    for path in sorted(paths, key=len, reverse=True):  # a shorter path replaces what it covers
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = None
    return tree


_IGNORED_TREE = _key_tree(IGNORED)
_DEEPER: dict[str, Any] = {}  # no ignored path below this key


def relevant_paths(old: Any, new: Any, prefix: Path = (), ignored: dict[str, Any] = _IGNORED_TREE) -> list[Path]:
    """The paths of ``changed_paths(old, new)`` not under an IGNORED prefix, in the same order, without walking the
    bookkeeping subtrees: a
    path under an IGNORED prefix is dropped whatever lies below it, so the walk need not look (managedFields,
    compared whole as a list, is most of an object's bytes and changes on most writes)."""
    if isinstance(old, dict) and isinstance(new, dict):
        paths: list[Path] = []
        for key, value in old.items():
            below = ignored.get(key, _DEEPER) if ignored else _DEEPER
            if below is None:
                continue
            if key not in new:
                paths.append((*prefix, key))
                continue
            other = new[key]
            if other is not value and other != value:  # a subtree both versions share is unchanged
                paths.extend(relevant_paths(value, other, (*prefix, key), below))
        for key in new:
            if key not in old and (not ignored or ignored.get(key, _DEEPER) is not None):
                paths.append((*prefix, key))
        return paths
    return [prefix] if old != new else []


def changed_paths(old: Any, new: Any, prefix: Path = ()) -> list[Path]:
    """Leaf paths whose values differ; lists and scalars are whole values (``relevant_paths`` ignoring nothing)."""
    return relevant_paths(old, new, prefix, _DEEPER)


def overlap(a: Path, b: Path) -> bool:
    n = min(len(a), len(b))
    return a[:n] == b[:n]
