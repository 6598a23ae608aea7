"""ListOptions of a LIST or WATCH, decoded, defaulted and validated as ``listOpts`` does it
(apiserver ``pkg/endpoints/handlers/get.go``, v0.37.2), in its order:

1. the parameter codec: ``timeoutSeconds`` then ``limit`` through ``strconv.ParseInt`` (400 with Go's text),
   then the label selector and the field selector parsed (400 with the parser's text);
2. ``SetListOptionsDefaults`` (apimachinery ``pkg/apis/meta/internalversion/defaults.go``, WatchList on): a
   watch from no resourceVersion or "0" that names neither ``sendInitialEvents`` nor ``resourceVersionMatch``
   gets ``sendInitialEvents=true`` and ``resourceVersionMatch=NotOlderThan`` — so it ends its initial events
   with the ``k8s.io/initial-events-end`` bookmark when it allows bookmarks;
3. ``ValidateListOptions`` (``.../internalversion/validation/validation.go``): one 422
   ``ListOptions.meta.k8s.io "" is invalid`` with every problem;
4. the field selector's labels, converted per kind (the store's 400 for a label the kind cannot select);
5. a watch of one object by name (``/watch/.../{name}``): a field selector on another name is a 400.

The resourceVersion itself is parsed by the store, as the storage layer does.
"""

from __future__ import annotations

from dataclasses import dataclass

from fakekube import errors
from fakekube.fieldselectors import FieldSelector
from fakekube.selectors import LabelSelector
from fakekube.server.params import Query, go_bool

EXACT, NOT_OLDER_THAN = "Exact", "NotOlderThan"


@dataclass(slots=True)
class ListOptions:
    labels: LabelSelector
    fields: FieldSelector
    watch: bool
    allow_bookmarks: bool
    resource_version: str
    resource_version_match: str
    timeout_seconds: int | None
    limit: int
    continue_: str
    send_initial_events: bool | None


def decode(query: Query, *, watch: bool, name: str | None = None) -> ListOptions:
    """The options of a list (``watch`` False) or a watch (``watch`` True: ``watch=...`` or a /watch/ path)."""
    timeout = query.int("timeoutSeconds")
    limit = query.int("limit") or 0
    labels = LabelSelector.parse(query.str("labelSelector"))
    fields = FieldSelector.parse(query.str("fieldSelector"))
    sie_text = query.str("sendInitialEvents")
    opts = ListOptions(
        labels=labels, fields=fields, watch=watch,
        allow_bookmarks=bool(query.bool("allowWatchBookmarks")),
        resource_version=query.str("resourceVersion") or "",
        resource_version_match=query.str("resourceVersionMatch") or "",
        timeout_seconds=timeout, limit=limit, continue_=query.str("continue") or "",
        send_initial_events=None if sie_text is None else go_bool(sie_text),
    )
    _default(opts)
    problems = _watch_errors(opts) if watch else _list_errors(opts)
    if problems:
        raise errors.Invalid("ListOptions", "meta.k8s.io", "", problems)
    if name is not None and not fields.empty:
        selected = fields.requires_exact_match("metadata.name")
        if selected != name:
            raise errors.BadRequest("fieldSelector metadata.name doesn't match requested name")
    return opts


def _default(opts: ListOptions) -> None:
    if opts.send_initial_events is not None or opts.resource_version_match:
        return
    if opts.watch and opts.resource_version in ("", "0"):
        opts.send_initial_events = True
        opts.resource_version_match = NOT_OLDER_THAN


def _list_errors(opts: ListOptions) -> list[errors.FieldError]:
    problems: list[errors.FieldError] = []
    match = opts.resource_version_match
    if match:
        if not opts.resource_version:
            problems.append(errors.forbidden(
                "resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
        if opts.continue_:
            problems.append(errors.forbidden(
                "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
        if match not in (EXACT, NOT_OLDER_THAN):
            problems.append(errors.not_supported("resourceVersionMatch", match, [EXACT, NOT_OLDER_THAN, ""]))
        if match == EXACT and opts.resource_version == "0":
            problems.append(errors.forbidden(
                "resourceVersionMatch", 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'))
    if opts.send_initial_events is not None:
        problems.append(errors.forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
    return problems


def _watch_errors(opts: ListOptions) -> list[errors.FieldError]:
    problems: list[errors.FieldError] = []
    match = opts.resource_version_match
    if opts.send_initial_events is not None and match != NOT_OLDER_THAN:
        problems.append(errors.forbidden(
            "resourceVersionMatch", f"sendInitialEvents requires setting resourceVersionMatch to {NOT_OLDER_THAN}"))
    if match:
        if opts.send_initial_events is None:
            problems.append(errors.forbidden(
                "resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
        if match != NOT_OLDER_THAN:
            problems.append(errors.not_supported("resourceVersionMatch", match, [NOT_OLDER_THAN]))
        if opts.continue_:
            problems.append(errors.forbidden(
                "resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"))
    return problems
