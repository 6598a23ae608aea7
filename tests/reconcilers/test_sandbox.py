"""The sandbox pass's pod PUT at 953032b3 (#419, every pass): the body sent when the pod's labels already hold
what the pass sets is the cached pod's own fields, and it is byte for byte the body the edits would build."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fakekube.agentsandbox import keys, sandbox
from fakekube.agentsandbox.builds import BUILDS
from fakekube.agentsandbox.hashing import name_hash
from fakekube.agentsandbox.sandbox import SandboxReconciler

SANDBOX = {"apiVersion": keys.SANDBOX_API, "kind": "Sandbox",
           "metadata": {"name": "sb", "namespace": "ns", "uid": "uid-sb"}, "spec": {}}
OWNED = [{"apiVersion": keys.SANDBOX_API, "kind": "Sandbox", "name": "sb", "uid": "uid-sb", "controller": True,
          "blockOwnerDeletion": True}]


class _Client:
    """Records each PUT body as JSON text (key order included) and answers with it, as a no-op would."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.bodies: list[dict[str, Any]] = []

    async def update(self, resource: str, obj: dict[str, Any], **_: Any) -> dict[str, Any]:
        assert resource == keys.PODS
        self.sent.append(json.dumps(obj))
        self.bodies.append(obj)
        return obj


def _put(pod: dict[str, Any], template_labels: dict[str, str] | None, *, full_path: bool = False) -> tuple[str, Any]:
    client = _Client()
    reconciler = SandboxReconciler(client, lambda: "", lambda: 0.0, build=BUILDS["953032b3"])
    template_meta = {} if template_labels is None else {"labels": template_labels}
    saved = sandbox._has_labels
    if full_path:
        sandbox._has_labels = lambda *_: False  # type: ignore[assignment]
    try:
        asyncio.run(reconciler._sync_pod(SANDBOX, pod, name_hash("sb"), template_meta))
    finally:
        sandbox._has_labels = saved
    (text,), (body,) = client.sent, client.bodies
    return text, body


_values = st.sampled_from(["1", "2", ""])
# Mostly labels that carry the right name hash (the case the short cut is for), in any key order.
_labels = st.one_of(
    st.just("absent"), st.none(),
    st.lists(st.tuples(st.sampled_from([keys.SANDBOX_NAME_HASH, "a", "b", "c"]),
                       st.sampled_from([name_hash("sb"), name_hash("sb"), "1", ""])), max_size=4).map(dict),
    st.tuples(st.dictionaries(st.sampled_from(["a", "b"]), _values, max_size=2), st.booleans()).map(
        lambda pair: {**pair[0], keys.SANDBOX_NAME_HASH: name_hash("sb")} if pair[1]
        else {keys.SANDBOX_NAME_HASH: name_hash("sb"), **pair[0]}),
)
_template = st.one_of(st.none(), st.dictionaries(st.sampled_from(["a", "b"]), st.one_of(_values, st.none()),
                                                 max_size=2))


def _pod(labels: Any, owned: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "sb", "namespace": "ns", "uid": "uid-pod", "resourceVersion": "7"}
    if labels != "absent":
        meta["labels"] = labels
    if owned:
        meta["ownerReferences"] = OWNED
    meta["managedFields"] = [{"manager": "kubelet", "operation": "Update"}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": [{"name": "c"}]},
            "status": {"phase": "Running"}}


@settings(max_examples=300, deadline=None)
@given(_labels, st.booleans(), _template)
@example({keys.SANDBOX_NAME_HASH: name_hash("sb")}, True, {"a": None})  # a null template label is still set
def test_the_pod_put_body_is_the_one_the_edits_build(labels: Any, owned: bool, template: Any) -> None:
    pod = _pod(labels, owned)
    before = json.dumps(pod)
    got, body = _put(pod, template)
    want, _ = _put(pod, template, full_path=True)
    assert got == want
    assert json.dumps(pod) == before  # the cached pod is left as it was


@pytest.mark.parametrize("template", [None, {}, {"a": "1"}])
def test_a_pod_with_its_labels_goes_out_as_the_cached_fields_themselves(template: Any) -> None:
    """The case every pass after the first takes: nothing copied below the top level."""
    pod = _pod({keys.SANDBOX_NAME_HASH: name_hash("sb"), "a": "1"}, owned=True)
    _, body = _put(pod, template)
    assert body is not pod and all(body[key] is pod[key] for key in pod) and list(body) == list(pod)
