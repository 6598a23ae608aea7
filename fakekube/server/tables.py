"""Server-side printing: a ``meta.k8s.io/v1`` ``Table`` instead of the object, when the client asks for one.

kubectl's human-readable ``get`` sends ``Accept: application/json;as=Table;v=v1;g=meta.k8s.io,
application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`` and prints the columns it gets back; any
other client sends no ``as=`` parameter and keeps getting plain JSON. Like the real server this is a
presentation step after the verb (kubernetes/apiserver ``pkg/endpoints/handlers/response.go``, ``asTable``):
the store's answer is rendered, never changed.

- ``includeObject`` (a query parameter, part of ``metav1.TableOptions``): ``Metadata`` (the default) puts a
  ``PartialObjectMetadata`` in each row, ``Object`` the whole object, ``None`` nothing. kubectl asks for
  ``Object`` only with ``--sort-by``; it needs the metadata for ``-A``'s NAMESPACE column and ``-L``/``--show-labels``.
- A list's Table carries the list's ``resourceVersion``, ``continue`` and ``remainingItemCount``; one object's
  Table carries the object's ``resourceVersion``.
- Watch: each event's object is a one-row Table; only the first carries ``columnDefinitions`` (the real
  server's watch encoder sets ``NoHeaders`` after the first event). ``ERROR`` events keep their Status; a
  ``BOOKMARK`` becomes an empty Table with the bookmark's resourceVersion.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from fakekube import errors
from fakekube.resources import ResourceType
from fakekube.server import negotiation
from fakekube.server.columndocs import resolved
from fakekube.server.printers import BUILTIN, DEFAULT, Printer, crd_printer
from fakekube.store import Store
from fakekube.watch import BOOKMARK, ERROR, WatchEvent

GROUP = "meta.k8s.io"
INCLUDE_OBJECT = ("None", "Metadata", "Object")


def wants_table(accept: str | None) -> str | None:
    """The Table version to answer with (``v1`` or ``v1beta1``), or None for plain JSON.

    The first acceptable entry of the Accept list decides, as the real server's negotiation does
    (fakekube/server/negotiation.py): a client that lists plain JSON first gets plain JSON."""
    try:
        return negotiation.negotiate(accept, (negotiation.JSON, negotiation.YAML), tables=True).table_version
    except errors.ApiError:
        return None


def content_type(version: str) -> str:
    return f"application/json;as=Table;v={version};g={GROUP}"


def include_object(value: str | None) -> str:
    """``includeObject`` from the query; unknown values are the 400 the real server gives."""
    if value in (None, ""):
        return "Metadata"
    if value not in INCLUDE_OBJECT:
        raise errors.BadRequest(f'unrecognized includeObject value: "{value}"')
    return value


class Printers:
    """Which printer renders a resource: built-in printers by group and plural, custom resources from their
    CRD's ``additionalPrinterColumns`` (read from the stored CRD, cached until the registry changes)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._generation = -1
        self._crd_printers: dict[tuple[str, str, str], Printer] = {}

    def for_resource(self, rt: ResourceType) -> Printer:
        if not rt.custom:
            return BUILTIN.get((rt.group, rt.plural), DEFAULT)
        with self._lock:
            generation = self.store.registry.generation
            if generation != self._generation:
                self._crd_printers = {}
                self._generation = generation
            key = (rt.group, rt.version, rt.plural)
            printer = self._crd_printers.get(key)
            if printer is None:
                printer = self._crd_printers[key] = crd_printer(self._columns(rt))
            return printer

    def _columns(self, rt: ResourceType) -> list[dict[str, Any]] | None:
        # store.objects reads without an audit entry: printing is not a request of its own.
        name = f"{rt.plural}.{rt.group}"
        for crd in self.store.objects("customresourcedefinitions"):
            if crd.get("metadata", {}).get("name") != name:
                continue
            for version in (crd.get("spec") or {}).get("versions") or []:
                if version.get("name") == rt.version:
                    return version.get("additionalPrinterColumns")
        return None  # registered without a CRD object (Registry.load_crds): NAME and AGE


class TableWriter:
    """Renders one request's results as Tables of one version, with one ``includeObject`` choice."""

    def __init__(self, printer: Printer, rt: ResourceType, version: str, include: str,
                 now: Callable[[], datetime]) -> None:
        self.printer = printer
        self.rt = rt
        self.version = version
        self.include = include
        self.now = now
        self._headers_sent = False

    def _table(self, rows: list[dict[str, Any]], metadata: dict[str, Any], headers: bool) -> dict[str, Any]:
        table: dict[str, Any] = {"kind": "Table", "apiVersion": f"{GROUP}/{self.version}", "metadata": metadata}
        if headers:
            model = self.rt.model  # a built-in kind's documentation of its own Kubernetes version
            table["columnDefinitions"] = resolved(self.printer.columns,
                                                  model.kubernetes_version if model is not None else None)
        table["rows"] = rows
        return table

    def _row(self, obj: dict[str, Any], now: datetime) -> dict[str, Any]:
        row: dict[str, Any] = {"cells": self.printer.row(obj, now)}
        if self.include == "Object":
            row["object"] = {"apiVersion": self.rt.api_version, "kind": self.rt.kind, **obj}
        elif self.include == "Metadata":
            row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": f"{GROUP}/v1",
                             "metadata": obj.get("metadata") or {}}
        return row

    def for_object(self, obj: dict[str, Any]) -> dict[str, Any]:
        rv = (obj.get("metadata") or {}).get("resourceVersion")
        return self._table([self._row(obj, self.now())], {"resourceVersion": rv} if rv else {}, True)

    def for_list(self, listing: dict[str, Any]) -> dict[str, Any]:
        now = self.now()
        meta = listing.get("metadata") or {}
        metadata = {k: meta[k] for k in ("resourceVersion", "continue", "remainingItemCount") if meta.get(k)}
        return self._table([self._row(item, now) for item in listing.get("items") or []], metadata, True)

    def for_event(self, event: WatchEvent) -> dict[str, Any]:
        """The object of one watch event. Not thread-safe: one writer per stream."""
        if event.type == ERROR:
            return event.raw
        if event.type == BOOKMARK:
            rv = event.resource_version
            return self._table([], {"resourceVersion": rv} if rv else {}, False)
        headers = not self._headers_sent
        self._headers_sent = True
        return self._table([self._row(event.raw, self.now())], {}, headers)
