"""Pruning and defaulting of custom resources over a compiled structural schema (``fakekube.schema``).

Behaviour follows kubernetes/apiextensions-apiserver ``pkg/apiserver/schema/{pruning,defaulting}`` (see
docs/validation.md): unknown fields are dropped where the schema does not preserve them, ``default`` values
are filled in, and nulls the schema neither allows nor defaults are dropped. The walks are functions over the
schema's ``_Node`` tree, kept apart from validation, which owns that tree.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fakekube.schema import _Node

META_FIELDS = frozenset(("apiVersion", "kind", "metadata"))  # an embedded resource's own fields, never pruned
LEAF_TYPES = frozenset((str, int, float, bool, type(None)))  # JSON scalars: nothing below them to walk


def prune(tree: _Node, value: Any, root: bool = False, where: list[Any] | None = None,
          pruned: list[str] | None = None) -> None:
    """Drop what the schema does not declare; ``pruned`` collects the dropped paths (``spec.a[0].b``).
    ``where`` is the location of ``value`` (keys and list indices), kept up to date as the walk goes and
    rendered only for what is dropped."""
    # The resource root is treated as an embedded resource: apiVersion/kind/metadata are never pruned.
    keep_meta = tree.embedded or root
    if where is None:
        where = []
    if tree.preserve_unknown:
        _skip_prune(tree, value, keep_meta, where, pruned)
        return
    if isinstance(value, dict):
        for key in list(value):
            if keep_meta and key in META_FIELDS:
                continue
            node = tree._member(key)
            if node is None:
                del value[key]
                if pruned is not None:
                    pruned.append(_render(where, key))
            elif type(item := value[key]) not in LEAF_TYPES:  # a scalar has nothing to prune
                where.append(key)
                prune(node, item, False, where, pruned)
                where.pop()
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if type(item) in LEAF_TYPES:
                continue
            where.append(i)
            if tree.items is None:
                _prune_everything(item, where, pruned)
            else:
                prune(tree.items, item, False, where, pruned)
            where.pop()


def _skip_prune(tree: _Node, value: Any, keep_meta: bool, where: list[Any], pruned: list[str] | None) -> None:
    # Unknown fields stay, but known ones are still pruned below (their own schema may not preserve).
    if isinstance(value, dict):
        for key, item in value.items():
            if (keep_meta or tree.embedded) and key in META_FIELDS:
                continue
            node = tree.properties.get(key) or tree.additional
            if node is not None and type(item) not in LEAF_TYPES:
                where.append(key)
                prune(node, item, False, where, pruned)
                where.pop()
    elif isinstance(value, list) and tree.items is not None:
        for i, item in enumerate(value):
            if type(item) in LEAF_TYPES:
                continue
            where.append(i)
            _skip_prune(tree.items, item, False, where, pruned)
            where.pop()


def would_prune(tree: _Node, value: Any, root: bool = False) -> bool:
    """Whether ``prune`` would drop anything from ``value`` (which is left as it is): the same walk, stopping
    at the first field it would drop."""
    keep_meta = tree.embedded or root
    if tree.preserve_unknown:
        return _would_skip_prune(tree, value, keep_meta)
    if isinstance(value, dict):
        props, additional = tree.properties, tree.additional
        for key, item in value.items():
            if keep_meta and key in META_FIELDS:
                continue
            node = props.get(key) or additional  # tree._member(key), inline: once per member of a patch
            if node is None:
                return True
            if type(item) not in LEAF_TYPES and would_prune(node, item):
                return True
    elif isinstance(value, list):
        for item in value:
            if type(item) in LEAF_TYPES:
                continue
            if tree.items is None:
                if _holds_a_member(item):
                    return True
            elif would_prune(tree.items, item):
                return True
    return False


def _would_skip_prune(tree: _Node, value: Any, keep_meta: bool) -> bool:
    """``would_prune`` for ``_skip_prune``'s walk (under a node that preserves unknown fields)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if (keep_meta or tree.embedded) and key in META_FIELDS:
                continue
            node = tree.properties.get(key) or tree.additional
            if node is not None and type(item) not in LEAF_TYPES and would_prune(node, item):
                return True
    elif isinstance(value, list) and tree.items is not None:
        return any(type(item) not in LEAF_TYPES and _would_skip_prune(tree.items, item, False) for item in value)
    return False


def defaulted(tree: _Node, value: Any) -> Any:
    """``value`` with its ``default`` values filled in, never changed in place: ``value`` itself when nothing is
    defaulted, else a copy of the maps and lists on the way to each default (copy-before-edit), sharing the rest.
    A patch's result may share subtrees with the stored object (fakekube.verbs.shared_patch), which no write may
    change."""
    if not tree.defaults_below:
        return value  # no default at or below this node's members and items: nothing to fill in
    out: Any = None  # the copy, made at the first change
    if isinstance(value, dict):
        for key, node in tree.default_members:
            if key not in value or (value[key] is None and not node.nullable):
                if out is None:
                    out = dict(value)
                out[key] = copy.deepcopy(node.default)
        props, add = tree.properties, tree.additional
        for key, item in list((out if out is not None else value).items()):
            node = props.get(key) or add
            if node is None:
                continue
            new = _defaulted_member(node, item)
            if new is not item:
                if out is None:
                    out = dict(value)
                out[key] = new
    elif isinstance(value, list) and tree.items is not None:
        for i, item in enumerate(value):
            new = _defaulted_member(tree.items, item)
            if new is not item:
                if out is None:
                    out = list(value)
                out[i] = new
    return out if out is not None else value


def _defaulted_member(node: _Node, item: Any) -> Any:
    """One member or item under ``node``, defaulted: a ``null`` the node does not allow becomes (a copy of) its
    default first. (A declared property's missing or null value was already set from ``default_members``.)"""
    if item is None and not node.nullable and node.has_default:
        item = copy.deepcopy(node.default)
    return defaulted(node, item)


def without_nulls(tree: _Node, value: Any) -> Any:
    """``PruneNonNullableNullsWithoutDefaults``: ``value`` without the ``null`` members the schema neither allows
    nor defaults, never changed in place (as :func:`defaulted`: itself, or copies on the way to each change)."""
    out: Any = None
    if isinstance(value, dict):
        props, add = tree.properties, tree.additional
        for key, item in value.items():
            node = props.get(key) or add
            if node is None:
                continue
            if item is None:
                if not node.nullable and not node.has_default:
                    if out is None:
                        out = dict(value)
                    del out[key]
            elif type(item) not in LEAF_TYPES:
                new = without_nulls(node, item)
                if new is not item:
                    if out is None:
                        out = dict(value)
                    out[key] = new
    elif isinstance(value, list) and tree.items is not None:
        items = tree.items
        for i, item in enumerate(value):
            if type(item) in LEAF_TYPES:
                continue
            new = without_nulls(items, item)
            if new is not item:
                if out is None:
                    out = list(value)
                out[i] = new
    return out if out is not None else value


def _render(where: list[Any], key: str | None = None) -> str:
    """A pruned location as apiextensions-apiserver names it: ``spec.items[0].foo``."""
    parts: list[str] = []
    for entry in (*where, key) if key is not None else where:
        if isinstance(entry, int):
            parts.append(f"[{entry}]")
        else:
            parts.append(f".{entry}" if parts else entry)
    return "".join(parts)


def _prune_everything(value: Any, where: list[Any], pruned: list[str] | None) -> None:
    """Pruning under no schema: objects lose every field, lists are walked."""
    if isinstance(value, dict):
        if pruned is not None:
            pruned.extend(_render(where, key) for key in value)
        value.clear()
    elif isinstance(value, list):
        for i, item in enumerate(value):
            where.append(i)
            _prune_everything(item, where, pruned)
            where.pop()




def _holds_a_member(value: Any) -> bool:
    """Whether ``_prune_everything`` would drop something: an object with a member, at any depth in lists."""
    if isinstance(value, dict):
        return bool(value)
    if isinstance(value, list):
        return any(_holds_a_member(item) for item in value)
    return False
