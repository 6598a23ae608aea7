"""The object a create's managedFields entry is computed against: the kind's Go zero value.

kube-apiserver's create handler runs the field manager with ``scope.Creater.New(kind)`` as the live object
(apiserver ``pkg/endpoints/handlers/create.go``), and structured-merge-diff compares it with the new object
(apimachinery ``pkg/util/managedfields/internal/structuredmerge.go``, smd ``typed/compare.go``). What the
zero value already holds — a non-pointer struct such as ``spec`` or ``strategy``, a field without
``omitempty`` at its zero value (``containers: null``, ``roleRef.name: ""``) — is not "added", so it is
not a member of the creator's set unless its value changed; everything else is, containers included, and
FieldsV1 then marks a container that is a member and has children with ``"."``.

The zero values are generated from the Go types of the release (``zero_objects.json``, made by
scripts/generate-zero-objects); a custom resource's is empty (an ``Unstructured`` with only its type).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def _table() -> dict[str, dict[str, Any]]:
    text = resources.files(__package__).joinpath("zero_objects.json").read_text()
    kinds: dict[str, dict[str, Any]] = json.loads(text)["kinds"]
    return kinds


def zero_object(api_version: str, kind: str) -> dict[str, Any]:
    """The Go zero value of ``kind`` as JSON, without apiVersion and kind (``{}`` for a kind without a Go
    type: a custom resource). Shared: callers must not change it."""
    return _table().get(api_version, {}).get(kind, _EMPTY)


_EMPTY: dict[str, Any] = {}
