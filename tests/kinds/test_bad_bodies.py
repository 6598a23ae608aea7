"""Per-kind hooks (defaulting, admission, allocation, validation) see bodies before their types are checked:
whatever a caller sends to any built-in kind, the answer is a Status error or a result, never an internal
error, and a refused write leaves the store as it was (no allocation kept either)."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, given, settings

from fakekube import errors
from fakekube.builtins import builtin_types
from fakekube.store import Store
from tests.kinds.conftest import deployment, pod, pod_template

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 70000) | st.text(max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)
_WRITABLE = sorted(rt.plural if not rt.group else f"{rt.plural}.{rt.group}" for rt in builtin_types()
                   if "create" in rt.verbs and "update" in rt.verbs and not rt.from_storage)
_SEEDS: dict[str, dict[str, Any]] = {
    "pods": pod(), "deployments.apps": deployment(),
    "jobs.batch": {"metadata": {}, "spec": {"template": pod_template(restartPolicy="Never")}},
    "services": {"metadata": {}, "spec": {"type": "NodePort", "ports": [{"port": 80}], "selector": {"app": "x"}}},
}


def _mutations(base: dict[str, Any]) -> Any:
    """The seed body with one part (a top-level key or one level below) replaced by random JSON."""
    paths = [(k,) for k in base] + [(k, sub) for k, v in base.items() if isinstance(v, dict) for sub in v]
    paths += [("metadata", key) for key in ("labels", "annotations", "finalizers", "ownerReferences")]
    return st.tuples(st.sampled_from(paths or [("spec",)]), JSON)


def _apply(base: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    body = {k: (dict(v) if isinstance(v, dict) else v) for k, v in base.items()}
    body.setdefault("metadata", {})
    if len(path) == 1:
        body[path[0]] = value
    elif isinstance(body.get(path[0]), dict):
        body[path[0]][path[1]] = value
    return body


def _clean(exc: errors.ApiError) -> None:
    assert exc.status["kind"] == "Status" and 400 <= exc.code < 600
    assert exc.reason != "InternalError", exc.message


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(resource=st.sampled_from(_WRITABLE), data=st.data())
def test_any_body_for_any_kind(resource: str, data: st.DataObject) -> None:
    store = Store(seed=0)
    base = _SEEDS.get(resource, {"metadata": {}, "spec": {}})
    path, value = data.draw(_mutations(base))
    body = _apply(base, path, value)
    body["metadata"] = {**(body["metadata"] if isinstance(body["metadata"], dict) else {}), "name": "fuzzed"} \
        if path != ("metadata",) else body["metadata"]
    rt = store.resolve(resource)
    namespace = "default" if rt.namespaced else None
    allocated = store.allocators.cluster_ips.in_use(), store.allocators.node_ports.in_use()
    try:
        # (a LimitRange sent without a name gets a UUID for one)
        name = store.create(resource, body, namespace)["metadata"]["name"]
    except errors.ApiError as exc:
        _clean(exc)
        assert (store.allocators.cluster_ips.in_use(), store.allocators.node_ports.in_use()) == allocated
        return
    live = store.get(resource, name, namespace)
    try:
        store.update(resource, _apply(live, path, data.draw(JSON)), namespace)
    except errors.ApiError as exc:
        _clean(exc)
    store.delete(resource, name, namespace, grace_period_seconds=0)
    for _ in range(3):
        try:
            store.get(resource, name, namespace)
        except errors.NotFound:
            break
        store.patch(resource, name, {"metadata": {"finalizers": None}}, namespace)
