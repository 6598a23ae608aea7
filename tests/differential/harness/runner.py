"""Run one case against one server: its namespace, its setup, its steps (templates filled in), its cleanup.

The comparable answers of the steps are the case's result; what could make a recording irreproducible (a
wait that timed out, a reference to an answer that had no such field, a transport failure) is reported as a
problem, so scripts/record-oracle refuses to write a recording that would not replay.

Independent of fakekube: the harness judges fakekube, so it never imports it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from .client import Answer, Client, Request
from .corpus import TEMPLATE, Case
from .normalise import Context, comparable, parse

# What kube-controller-manager puts in every new namespace (serviceaccount and root-ca-cert-publisher
# controllers). A case starts once both are there, so whether a LIST sees them does not depend on timing.
NAMESPACE_READY = ("serviceaccounts/default", "configmaps/kube-root-ca.crt")
NAMESPACE_READY_TIMEOUT = 20.0
NAMESPACE_GONE_TIMEOUT = 60.0


def namespace_for(case_name: str) -> str:
    """A DNS-1123 label from the case name plus a hash of it: readable, unique, ≤ 40 characters so names
    built from it (``crd-{ns}``, label values) stay within their own limits."""
    digest = hashlib.sha256(case_name.encode()).hexdigest()[:8]
    slug = re.sub(r"[^a-z0-9]+", "-", case_name.lower()).strip("-")[:29].strip("-")
    return f"d-{slug}-{digest}" if slug else f"d-{digest}"


@dataclass
class CaseRun:
    name: str
    setup: list[int] = field(default_factory=list)  # the setup steps' statuses (compared, not their bodies)
    answers: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class _State:
    namespace: str
    steps: list[Any] = field(default_factory=list)  # parsed bodies (a watch: its parsed events)
    setup: list[Any] = field(default_factory=list)
    created: list[str] = field(default_factory=list)  # cluster-scoped paths to delete afterwards
    problems: list[str] = field(default_factory=list)


class Runner:
    def __init__(self, client: Client, *, poll: float = 0.005, max_poll: float = 0.5,
                 max_wait: float | None = None) -> None:
        """``max_wait`` caps every wait step's timeout: a server whose controllers act at once (fakekube)
        need not be given the real one's patience when it diverges."""
        self.client = client
        self.max_wait = max_wait
        self.poll = poll
        self.max_poll = max_poll

    def run(self, case: Case) -> CaseRun:
        started = time.monotonic()
        state = _State(namespace_for(case.name))
        context = Context(state.namespace, case.literals())
        result = CaseRun(case.name)
        try:
            self._create_namespace(state)
            for step in [*case.setup, *case.steps]:
                prefix = _generate_name(step)
                if prefix:
                    context.expect_generated(prefix.replace("{ns}", state.namespace))
            for index, step in enumerate(case.setup):
                answer = self._step(step, state, index, setup=True)
                result.setup.append(answer.status)
                if not 200 <= answer.status < 300:
                    state.problems.append(f"setup {index}: {step['method']} {step['path']} answered "
                                          f"{answer.status}: {answer.body[:300]!r}")
            for index, step in enumerate(case.steps):
                answer = self._step(step, state, index, setup=False)
                result.answers.append(comparable(answer, context))
                if answer.error is not None:
                    state.problems.append(f"step {index}: {answer.error}")
        finally:
            self._cleanup(state)
        result.problems = state.problems
        result.seconds = time.monotonic() - started
        return result

    # -- the namespace -------------------------------------------------------------------------------------

    def _create_namespace(self, state: _State) -> None:
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": state.namespace}}
        create = Request("POST", "/api/v1/namespaces", body=json.dumps(body).encode(),
                         headers={"Content-Type": "application/json"})
        answer = self.client.send(create)
        if answer.status == 409:
            # The same case ran moments ago (a rerun, or a drawn case hypothesis repeated) and its namespace is
            # still terminating: wait until it is gone rather than report the case as broken.
            self._poll(Request("GET", f"/api/v1/namespaces/{state.namespace}"), {"until": 404},
                       NAMESPACE_GONE_TIMEOUT)
            answer = self.client.send(create)
        if answer.status != 201:
            state.problems.append(f"namespace {state.namespace}: create answered {answer.status}: {answer.body[:300]!r}")
            return
        for thing in NAMESPACE_READY:
            path = f"/api/v1/namespaces/{state.namespace}/{thing}"
            last = self._poll(Request("GET", path), {"until": 200}, NAMESPACE_READY_TIMEOUT)
            if last.status != 200:
                state.problems.append(f"namespace {state.namespace}: {thing} did not appear in "
                                      f"{NAMESPACE_READY_TIMEOUT:.0f}s (last status {last.status})")

    def _cleanup(self, state: _State) -> None:
        """Delete what the case made without waiting: the next case has a namespace of its own."""
        for path in [*reversed(state.created), f"/api/v1/namespaces/{state.namespace}"]:
            self.client.send(Request("DELETE", path, timeout=10.0))

    # -- steps ---------------------------------------------------------------------------------------------

    def _step(self, step: dict[str, Any], state: _State, index: int, *, setup: bool) -> Answer:
        where = f"{'setup' if setup else 'step'} {index}"
        request = self.request(step, state, where)
        wait = step.get("wait")
        if wait is not None:
            timeout = float(wait.get("timeout", 30))
            answer = self._poll(request, wait, min(timeout, self.max_wait) if self.max_wait else timeout)
            if not _reached(answer, wait):
                state.problems.append(f"{where}: waited {wait.get('timeout', 30)}s for {wait} on {request.path}; "
                                      f"last status {answer.status}")
        else:
            answer = self.client.send(request)
        parsed = [parse(e) for e in answer.events] if answer.events is not None else parse(answer.body)
        (state.setup if setup else state.steps).append(parsed)
        if 200 <= answer.status < 300 and answer.events is None:
            self._remember_cluster_scoped(request, answer.status, parsed, state)
        return answer

    def request(self, step: dict[str, Any], state: _State, where: str = "step") -> Request:
        """The step with its templates filled in from the answers so far."""
        def fill(value: Any) -> Any:
            return substitute(value, state.namespace, state.steps, state.setup, state.problems, where)

        headers = {str(k): fill(v) for k, v in step.get("headers", {}).items()}
        if "accept" in step:
            headers["Accept"] = step["accept"]
        body: bytes | None = None
        if "body" in step:
            body = json.dumps(fill(step["body"])).encode()
        elif "raw" in step:
            body = fill(step["raw"]).encode()
        elif "rawBase64" in step:
            body = base64.b64decode(step["rawBase64"])
        if body is not None or "contentType" in step:
            headers["Content-Type"] = step.get("contentType", "application/json")
        query: list[tuple[str, str]] = []
        for key, value in step.get("query", {}).items():
            for item in value if isinstance(value, list) else [value]:
                query.append((key, fill(_query_text(item))))
        watch = step.get("watch")
        return Request(step["method"], fill(step["path"]), query, headers, body,
                       watch_events=watch["events"] if watch else None,
                       watch_timeout=float(watch.get("timeout", 5)) if watch else 5.0,
                       anonymous=step.get("credentials") == "anonymous")

    def _poll(self, request: Request, wait: dict[str, Any], timeout: float) -> Answer:
        deadline = time.monotonic() + timeout
        delay = self.poll
        while True:
            answer = self.client.send(request)
            if _reached(answer, wait) or time.monotonic() + delay > deadline:
                return answer
            time.sleep(delay)
            delay = min(delay * 2, self.max_poll)

    @staticmethod
    def _remember_cluster_scoped(request: Request, status: int, parsed: Any, state: _State) -> None:
        """Best effort: an object created at cluster scope (a POST, or a PUT/PATCH that answered 201)."""
        if status != 201 or _namespaced(request.path) or not isinstance(parsed, dict):
            return
        if any(k == "dryRun" for k, _ in request.query):
            return
        if request.method == "POST":
            name = (parsed.get("metadata") or {}).get("name")
            if isinstance(name, str) and name:
                # A name a path segment may hold (a ClusterRole's "a b", "démo") is sent percent-encoded: raw,
                # it breaks the request line or the client's ASCII encoding.
                state.created.append(f"{request.path.rstrip('/')}/{quote(name, safe='')}")
        elif request.method in ("PUT", "PATCH"):
            state.created.append(request.path)


def _reached(answer: Answer, wait: dict[str, Any]) -> bool:
    """The wait's status, and (when asked) a condition of that type with status True (and that reason, when
    one is named), a field that is there (not null), a field that is not."""
    if answer.status != int(wait["until"]):
        return False
    body = parse(answer.body)
    if "condition" in wait:
        conditions = _field(body, "status.conditions") or []
        if not any(isinstance(c, dict) and c.get("type") == wait["condition"] and c.get("status") == "True"
                   and c.get("reason") == wait.get("reason", c.get("reason")) for c in conditions):
            return False
    if "present" in wait and _field(body, wait["present"]) is None:
        return False
    return not ("absent" in wait and _field(body, wait["absent"]) is not None)


def _field(body: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(body, dict):
            return None
        body = body.get(part)
    return body


def _generate_name(step: dict[str, Any]) -> str | None:
    body = step.get("body")
    meta = body.get("metadata") if isinstance(body, dict) else None
    prefix = meta.get("generateName") if isinstance(meta, dict) else None
    return prefix if isinstance(prefix, str) else None


def _namespaced(path: str) -> bool:
    parts = [p for p in path.split("/") if p]
    rest = parts[2:] if parts[:1] == ["api"] else parts[3:]
    return len(rest) >= 3 and rest[0] == "namespaces"


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def substitute(value: Any, namespace: str, steps: list[Any], setup: list[Any], problems: list[str],
               where: str = "step") -> Any:
    """``{ns}`` and ``{rv:N}``/``{uid:N}``/``{name:N}``/``{continue:N}``/``{listrv:N}`` (``sN``: a setup
    step) filled in everywhere in a value; a reference that finds nothing becomes "" and a problem."""
    if isinstance(value, dict):
        return {substitute(k, namespace, steps, setup, problems, where): substitute(v, namespace, steps, setup,
                                                                                    problems, where)
                for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, namespace, steps, setup, problems, where) for v in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        what, is_setup, index = match.group(1), match.group(2) == "s", int(match.group(3))
        answers = setup if is_setup else steps
        found = reference(answers[index], what) if index < len(answers) else None
        if found is None:
            problems.append(f"{where}: {match.group(0)} found nothing in that step's answer")
            return ""
        return found

    return TEMPLATE.sub(one, value.replace("{ns}", namespace))


def reference(parsed: Any, what: str) -> str | None:
    """One field of an earlier answer: an object's (or a list's) metadata; a watch: its last event's object."""
    if isinstance(parsed, list):  # a watch's events
        objects = [e.get("object") for e in parsed if isinstance(e, dict) and isinstance(e.get("object"), dict)]
        parsed = objects[-1] if objects else None
    if not isinstance(parsed, dict) or not isinstance(parsed.get("metadata"), dict):
        return None
    field_name = {"rv": "resourceVersion", "listrv": "resourceVersion", "uid": "uid", "name": "name",
                  "continue": "continue"}[what]
    found = parsed["metadata"].get(field_name)
    return found if isinstance(found, str) and found else None


def run_all(client: Client, cases: list[Case], *, jobs: int = 1,
            progress: Callable[[CaseRun], None] | None = None, max_wait: float | None = None) -> dict[str, CaseRun]:
    """Every case against one server; ``jobs`` > 1 runs cases side by side on connections of their own (each
    case has a namespace of its own, so only cluster-wide timing changes, never what a case sees)."""
    results: dict[str, CaseRun] = {}
    if jobs <= 1:
        runner = Runner(client, max_wait=max_wait)
        for case in cases:
            results[case.name] = run = runner.run(case)
            if progress is not None:
                progress(run)
        return results
    local = threading.local()

    def one(case: Case) -> CaseRun:
        if not hasattr(local, "runner"):
            local.runner = Runner(client.copy(), max_wait=max_wait)
        return local.runner.run(case)

    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="differential") as pool:
        for run in pool.map(one, cases):
            results[run.name] = run
            if progress is not None:
                progress(run)
    return results
