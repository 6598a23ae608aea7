"""The OpenAPI definitions of one Kubernetes version's built-in types, from kubernetes-validate's data.

kubernetes-validate ships ``kubernetes-json-schema/v1.X.0-local/_definitions.json`` for each minor release:
every ``$defs`` entry of the upstream OpenAPI document (descriptions, ``x-kubernetes-group-version-kind``,
patch strategies and merge keys, list and map types), rewritten as JSON Schema (``"type": ["string",
"null"]`` for optional fields, ``oneOf`` for IntOrString and Quantity). Only its data files are read: the
package's Python module imports jsonschema, which fakekube does not need, so it is located with
``importlib.util.find_spec`` (which does not run it) and read through the loader's resource reader.

A version's file is parsed the first time something needs it and kept for the life of the process
(~10-20 ms for 1-2 MB); nothing on a Store's construction path reads it.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from functools import cache
from importlib.resources.abc import Traversable
from typing import Any, Generic, TypeVar

from fakekube.apimodel.versions import KubernetesVersion, kubernetes_version

_PACKAGE = "kubernetes_validate"
_REF_PREFIX = "#/$defs/"
_lock = threading.Lock()


def _data_root() -> Traversable:
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.loader is None:
        raise RuntimeError("kubernetes-validate is not installed: it provides the schemas of built-in kinds")
    reader = spec.loader.get_resource_reader(spec.name)  # type: ignore[attr-defined]
    return reader.files().joinpath("kubernetes-json-schema")


class Definitions:
    """The ``$defs`` of one version, with ``$ref`` resolution."""

    def __init__(self, version: KubernetesVersion, defs: dict[str, dict[str, Any]]) -> None:
        self.version = version
        self.defs = defs

    def __contains__(self, name: str) -> bool:
        return name in self.defs

    def __getitem__(self, name: str) -> dict[str, Any]:
        return self.defs[name]

    @staticmethod
    def ref_name(schema: dict[str, Any]) -> str | None:
        """The definition a schema points at (``$ref``), or None."""
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            return ref[len(_REF_PREFIX):]
        return None

    def resolve(self, schema: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        """(definition name or None, the schema itself or the definition it points at)."""
        name = self.ref_name(schema)
        if name is None:
            return None, schema
        return name, self.defs[name]


@cache
def _load(version: KubernetesVersion) -> Definitions:
    path = _data_root().joinpath(f"v{version.major}.{version.minor}.0-local", "_definitions.json")
    with _lock:
        defs = json.loads(path.read_text())["$defs"]
    return Definitions(version, defs)


def definitions(version: str | KubernetesVersion | None = None) -> Definitions:
    """The definitions of Kubernetes ``version`` (default: the emulated default), loaded once."""
    return _load(kubernetes_version(version))


def schema_types(schema: dict[str, Any]) -> set[str]:
    """The JSON types a schema allows, ``null`` left out (kubernetes-validate marks optional fields so)."""
    declared = schema.get("type")
    if isinstance(declared, str):
        return {declared} - {"null"}
    return {t for t in declared or () if t != "null"}


Node = TypeVar("Node")


class PerDefinition(Generic[Node]):
    """One compiled node per definition, built on first use and shared (thread-safe). ``_build`` registers
    a struct's node in ``nodes`` before building its fields, so recursive types become cycles."""

    def __init__(self, defs: Definitions) -> None:
        self.defs = defs
        self.nodes: dict[str, Node] = {}  # the builder's own table: finished nodes and those being built
        # What other threads read without the lock: finished nodes only. A struct's node enters ``nodes`` before
        # its fields are built, so a reader of ``nodes`` could get a half-built one while a build runs.
        self._finished: dict[str, Node] = {}
        self._lock = threading.RLock()
        self._depth = 0

    def definition(self, name: str) -> Node:
        node = self._finished.get(name)
        if node is not None:
            return node
        with self._lock:
            node = self.nodes.get(name)
            if node is None:
                self._depth += 1
                try:
                    node = self._build(name)
                finally:
                    self._depth -= 1
                if self._depth == 0:
                    self._finished = dict(self.nodes)  # published whole, once the outermost build is done
            return node

    def _build(self, name: str) -> Node:  # pragma: no cover - subclasses build
        raise NotImplementedError
