"""WATCH on every kind from the resourceVersion a create answered: the change after it, then a change and the
delete; from resourceVersion 0 (the current state as ADDED); and on the representative kinds a watch list
with its initial-events bookmark, a watch that sees nothing until its timeout, a label-selected watch. (A
too-old resourceVersion is not here: whether "1" is too old depends on what the server did before.) Every watch selects the one object by
name, so nothing else the server does shows up in the stream."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _profiles import Profile, profiles  # noqa: E402
from _steps import created, delete, get, kind_case, patch  # noqa: E402


def _watch(p: Profile, name: str, events: int, **query: str) -> dict:
    return get(p.kind.collection(), query={"watch": "true", "fieldSelector": f"metadata.name={name}", **query},
               watch={"events": events, "timeout": 5})


def for_kind(p: Profile) -> list[dict]:
    name = p.name()
    item = p.kind.item(name)
    made = created(p, p.body(name))
    rv = f"{{rv:{len(made) - 1}}}"
    label = patch(item, {"metadata": {"labels": {"watched": "yes"}}})
    # Background: where the default is Orphan, the garbage collector's finalizer would add events on its own
    # schedule between the delete and the object's removal.
    gone = delete(item, query={"propagationPolicy": "Background"} if p.deletion_finishes_later else None)
    out = [
        kind_case(p, "watch", "after-create", "watch", [*made, label, _watch(p, name, 1, resourceVersion=rv)]),
        kind_case(p, "watch", "change-and-delete", "watch", [*made, label, gone, _watch(p, name, 2, resourceVersion=rv)]),
        kind_case(p, "watch", "from-zero", "watch", [*made, _watch(p, name, 1, resourceVersion="0")]),
    ]
    if p.representative:
        out += [
            kind_case(p, "watch", "initial-events", "watch", [*made, _watch(
                p, name, 2, sendInitialEvents="true", resourceVersionMatch="NotOlderThan", allowWatchBookmarks="true")]),
            kind_case(p, "watch", "initial-events-without-bookmarks", "watch", [*made, _watch(
                p, name, 1, sendInitialEvents="true", resourceVersionMatch="NotOlderThan")]),
            kind_case(p, "watch", "no-changes", "watch", [*made, _watch(p, name, 1, resourceVersion=rv,
                                                                      timeoutSeconds="1")]),
            kind_case(p, "watch", "label-selected", "watch", [*made, label, _watch(
                p, name, 1, labelSelector="watched=yes", resourceVersion=rv)]),
        ]
    return out


def cases() -> list[dict]:
    return [c for p in profiles() for c in for_kind(p)]
