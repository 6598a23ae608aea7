"""One request's life in the store: its audit entry, the store lock, injected faults, its outcome in the
audit log, and the work it leaves to the background controllers (fakekube.gc, fakekube.serviceaccounts).

``RequestCycle`` is a mixin of ``fakekube.store.Store``, as the verbs are: every verb hands ``_run`` a factory
for its entry (``_begin``) and the body that serves it. This is the part every request pays whatever its kind,
so it does as little as it can per request (docs/benchmarks.md, "third round: the store's fixed cost").
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from fakekube import errors
from fakekube.audit import AuditEntry
from fakekube.audit.entry import request_entry
from fakekube.audit.log import NO_BODY
from fakekube.faults import FaultRequest, resolve_answer
from fakekube.resources import ResourceType
from fakekube.verbs.webhook_admission import MAX_RETRIES, ObjectMoved


class RequestCycle:
    """Serving and auditing of one request; the host (the Store) provides ``clock``, ``audit``, ``faults``,
    ``delay_hook``, ``gc``, ``gc_mode``, ``crd_controllers``, ``apf_config`` and ``service_accounts``."""

    def _init_request_cycle(self) -> None:
        self._seq = 0
        self._stamp: tuple[object, float] = (None, 0.0)  # (the clock's last datetime, its timestamp)
        self._lock = threading.RLock()
        self._depth = 0
        self._collecting = False
        # False when no garbage collector runs (a cluster without one) while the service-account controller,
        # which the same synchronous run serves, still does.
        self.collect_garbage = True
        self._follow_ups: list[AuditEntry] = []  # entries of work a request caused, audited after it
        self._thread_last = threading.local()  # the entry of each thread's latest outermost request

    def _begin(self, verb: str, rt: ResourceType, namespace: str | None, name: str | None,
               subresource: str | None, actor: str, *, dry_run: bool = False, based_on: str | None = None,
               patch_type: str | None = None, request_rv: str | None = None) -> AuditEntry:
        self._seq += 1
        moment = self.clock.now()
        stamp = self._stamp
        if moment is not stamp[0]:  # a virtual clock hands out one datetime per instant: its timestamp once
            stamp = self._stamp = (moment, moment.timestamp())
        entry = request_entry(self._seq, stamp[1], actor, verb, rt.group, rt.plural,
                              namespace if rt.namespaced else None, name, subresource, rt.version, dry_run, based_on,
                              patch_type, request_rv)
        if self.audit.open_contexts:  # a front serves this request and told the audit log about it
            entry.request = self.audit.take_context(entry)
        return entry

    def _inject_faults(self, entry: AuditEntry, request: Any) -> dict[str, Any] | None:
        """The faults injected into this request: delays, then other writers' racing writes, then an injected
        error or a scripted answer (returned: the request is not served)."""
        outcome = self.faults.check(entry.verb, entry.resource, entry.namespace, entry.name, entry.subresource,
                                    entry.actor)
        if outcome is None:
            return None
        if outcome.delay:
            self.delay_hook(outcome.delay)
        if outcome.races:
            entry.notes.append("injected race")
            self.faults.run_races(outcome, self)
        if outcome.error is not None:
            entry.notes.append("injected fault")
            raise outcome.error
        if outcome.answer is None:
            return None
        asked = FaultRequest(entry.verb, entry.resource, entry.namespace, entry.name, entry.subresource, entry.actor,
                             None if request is NO_BODY else request)
        answer = resolve_answer(outcome.answer, asked)
        if answer is not None:
            entry.notes.append("injected answer")
        return answer

    def _run(self, entry_factory: Callable[[], AuditEntry], body: Callable[[AuditEntry], Any],
             request: Any = NO_BODY) -> Any:
        """Serve one request under the store lock and audit it, whatever its outcome. ``request``: the body
        the client sent, which an audit policy may ask to log."""
        entry: AuditEntry | None = None
        audit = self.audit
        with self._lock:
            self._depth += 1
            try:
                entry = entry_factory()
                if audit.policy is not None:
                    audit.admit(entry, request)
                answer = self._inject_faults(entry, request) if self.faults.rules else None
                result = self._serve(entry, body) if answer is None else answer
                if not entry.code:
                    entry.code = 200
                if entry.level == "RequestResponse":
                    audit.respond(entry, result)
                return result
            except errors.ApiError as exc:
                if entry is not None:
                    entry.code, entry.reason, entry.message = exc.code, exc.reason, exc.message
                    entry.details = exc.details
                    if entry.level == "RequestResponse":
                        entry.response_object = exc.status
                raise
            except Exception as exc:  # a bug of ours: answered like the real server answers a panic
                internal = errors.InternalError(f"Internal error occurred: {exc!r}", reason="InternalError")
                if entry is not None:
                    entry.code, entry.reason, entry.message = internal.code, internal.reason, internal.message
                raise internal from exc
            finally:
                depth = self._depth = self._depth - 1
                if entry is not None:
                    if depth == 0:
                        self._thread_last.entry = entry
                    if audit.enabled:
                        audit.record(entry)
                if depth == 0:
                    if self._follow_ups:
                        follow_ups, self._follow_ups = self._follow_ups, []
                        for follow_up in follow_ups:
                            audit.record(follow_up)
                    if not self._collecting:
                        if self.gc_mode == "sync":
                            self._run_controllers()
                        elif self.crd_controllers.pending or self.apf_config.pending:
                            # kube-apiserver's own controllers run in every mode (fakekube.crdcontrollers,
                            # fakekube.apfconfig).
                            self._collecting = True
                            try:
                                while self.crd_controllers.pending or self.apf_config.pending:
                                    self.crd_controllers.collect()
                                    self.apf_config.collect()
                            finally:
                                self._collecting = False
                        if entry is not None:
                            # The controllers' requests were this thread's latest: the request's own outcome is.
                            self._thread_last.entry = entry

    def _serve(self, entry: AuditEntry, body: Callable[[AuditEntry], Any]) -> Any:
        """``body``, started over when the object it updates changed while its webhooks ran without the lock
        (fakekube.verbs.webhook_admission), as upstream's GuaranteedUpdate retries."""
        for _ in range(MAX_RETRIES):
            try:
                return body(entry)
            except ObjectMoved:
                entry.warnings.clear()
                entry.notes.append("retried: the object changed while admission webhooks ran")
        raise errors.Conflict(entry.resource, entry.group, entry.name or "")

    def _run_controllers(self) -> None:
        """The background controllers' work a request caused, each an audited request of its own; the
        controllers' own requests come back here, so one run at a time."""
        accounts = self.service_accounts
        crds = self.crd_controllers
        apf = self.apf_config
        garbage = self.collect_garbage and self.gc.pending
        if not garbage and not crds.pending and not apf.pending and (accounts is None or not accounts.pending):
            return
        self._collecting = True
        try:
            # Until nothing is left: each controller's writes may give another work (a CRD's cleanup deletes
            # custom resources the garbage collector looks at).
            while crds.pending or apf.pending or (self.collect_garbage and self.gc.pending) or (
                    accounts is not None and accounts.pending):
                if crds.pending:
                    crds.collect()
                if apf.pending:
                    apf.collect()
                if accounts is not None and accounts.pending:
                    accounts.collect()
                if self.collect_garbage and self.gc.pending:
                    self.gc.collect()
        finally:
            self._collecting = False

    def last_request(self) -> AuditEntry | None:
        """The audit entry of the latest request this thread made, kept even when the audit log is off:
        a front reads its outcome (an apply that created answers 201, one that updated 200)."""
        return getattr(self._thread_last, "entry", None)
