"""Writes that decode, default and validate only what changed (fakekube/verbs/unchanged.py, the pod strategy's
``defaulted_fields``) answer as a whole-object write does, and never share data with the caller."""

from __future__ import annotations

import copy
import json

import pytest

from fakekube import decoding, errors
from fakekube.store import Store
from fakekube.verbs.unchanged import check_update_body, decode_update_body, json_patch_fields

POD = {"metadata": {"name": "p", "labels": {"a": "1"}},
       "spec": {"containers": [{"name": "c", "image": "i:1", "env": [{"name": "E", "value": "1"}]}]}}


@pytest.fixture()
def stored(kube: Store) -> dict:
    return kube.create("pods", copy.deepcopy(POD), "default")


def test_a_put_that_keeps_the_spec_shares_nothing_with_the_caller(kube: Store, stored: dict) -> None:
    stored["metadata"]["labels"]["a"] = "2"
    answer = kube.update("pods", stored, "default")
    before = kube.get("pods", "p", "default")
    for mutated in (stored, answer):  # the body sent and the answer got
        mutated["spec"]["containers"][0]["env"][0]["value"] = "changed"
        mutated["spec"]["tolerations"].clear()
        mutated["metadata"]["managedFields"][0]["fieldsV1"].clear()
        mutated["status"]["phase"] = "changed"
    assert kube.get("pods", "p", "default") == before
    assert before["spec"]["containers"][0]["env"][0]["value"] == "1"


@pytest.mark.parametrize("change", [
    lambda spec: spec["containers"][0].__setitem__("image", 5),  # wrong type: 400
    lambda spec: spec.__setitem__("bogus", 1),  # unknown: dropped, warned
    lambda spec: spec["containers"][0].__setitem__("ports", [{"containerPort": "80"}]),
])
def test_decoding_a_put_over_the_stored_object_finds_what_a_whole_decode_finds(kube: Store, stored: dict,
                                                                               change) -> None:
    rt = kube.resolve("pods")
    record = kube._data[rt.storage][("default", "p")]
    body = json.loads(json.dumps(stored))
    body["metadata"]["bogus"] = 1
    change(body["spec"])
    try:
        whole = decoding.decode_body(rt, body)
    except errors.ApiError as exc:
        with pytest.raises(type(exc)) as info:
            decode_update_body(rt, body, record)
        assert info.value.status == exc.status
        return
    value, unknown = decode_update_body(rt, body, record)
    assert (json.dumps(value), unknown) == (json.dumps(whole.value), whole.unknown)
    assert check_update_body(rt, body, record) == decoding.check_body(rt, body) == whole.unknown


@pytest.mark.parametrize("change", [
    lambda spec: spec["containers"][0].__setitem__("image", 5),  # wrong type: the 400 comes before the 409
    lambda spec: spec.__setitem__("bogus", 1),  # unknown: warned, then the 409
])
def test_a_stale_put_reports_what_decoding_its_changed_fields_finds(kube: Store, stored: dict, change) -> None:
    body = json.loads(json.dumps(stored))
    stored["metadata"]["labels"]["a"] = "2"
    kube.update("pods", stored, "default")  # the body above is now stale
    change(body["spec"])
    body["metadata"]["bogus"] = 1
    rt = kube.resolve("pods")
    record = kube._data[rt.storage][("default", "p")]
    try:
        expected = decoding.check_body(rt, body)
    except errors.BadRequest as exc:
        with pytest.raises(errors.BadRequest) as info:
            kube.update("pods", body, "default")
        assert info.value.status == exc.status
        return
    assert check_update_body(rt, body, record) == expected
    with pytest.raises(errors.Conflict):
        kube.update("pods", body, "default", field_validation="Warn")
    assert kube.audit.entries[-1].warnings == [f'unknown field "{path}"' for path in expected]


def test_fields_equal_only_as_python_values_are_decoded(kube: Store, stored: dict) -> None:
    """``True == 1`` in Python, not in JSON: a field that differs only so is still checked."""
    rt = kube.resolve("pods")
    record = kube._data[rt.storage][("default", "p")]
    body = json.loads(json.dumps(stored))
    body["spec"]["terminationGracePeriodSeconds"] = 30.0
    with pytest.raises(errors.BadRequest, match="terminationGracePeriodSeconds"):
        decode_update_body(rt, body, record)


def test_a_put_without_a_default_the_stored_spec_has_is_defaulted_again(kube: Store, stored: dict) -> None:
    del stored["spec"]["dnsPolicy"]
    assert kube.update("pods", stored, "default")["spec"]["dnsPolicy"] == "ClusterFirst"


def test_a_put_that_changes_a_forbidden_spec_field_is_still_refused(kube: Store, stored: dict) -> None:
    stored["spec"]["restartPolicy"] = "Never"
    with pytest.raises(errors.Invalid, match="pod updates may not change fields"):
        kube.update("pods", stored, "default")


def test_json_patches_name_the_top_level_fields_they_write() -> None:
    assert json_patch_fields([{"op": "add", "path": "/metadata/labels/a", "value": "1"},
                              {"op": "replace", "path": "/a~1b~0c", "value": 1}]) == {"metadata", "a/b~c"}
    for unknown in ([{"op": "replace", "path": "", "value": {}}], [{"op": "add", "path": "/"}], ["x"], {},
                    [{"op": "add", "path": 1}]):
        assert json_patch_fields(unknown) is None


def test_a_json_patch_that_adds_unknown_top_level_fields_drops_and_reports_them(kube: Store, stored: dict) -> None:
    patched = kube.patch("pods", "p", [{"op": "add", "path": "/bogus", "value": 1},
                                       {"op": "add", "path": "/spec/bogus", "value": 1}], "default",
                         patch_type="application/json-patch+json")
    assert "bogus" not in patched and "bogus" not in patched["spec"]
    assert kube.last_request().warnings == ['unknown field "spec.bogus"', 'unknown field "bogus"']  # document order
    with pytest.raises(errors.Invalid, match="cannot unmarshal number into Go struct field Container"):
        kube.patch("pods", "p", [{"op": "add", "path": "/spec/containers/0/image", "value": 1}], "default",
                   patch_type="application/json-patch+json")


@pytest.mark.parametrize("change", [
    lambda spec: spec.__setitem__("terminationGracePeriodSeconds", 30.0),  # equal in Python, not in JSON: 400
    lambda spec: spec["containers"][0].__setitem__("image", 5),  # wrong type: the 400 comes before the 409
    lambda spec: spec.__setitem__("bogus", 1),  # unknown: warned, then the 409
    lambda spec: None,  # the version it was read from, as it was: the 409 alone
])
def test_a_stale_put_over_a_later_version_reports_what_a_whole_decode_finds(kube: Store, stored: dict,
                                                                             change) -> None:
    """The body is checked against the version it names too (``Hub.stored_at``): its fields that are that
    version's need no decoding, the others are decoded as a whole decode would."""
    body = json.loads(json.dumps(stored))
    later = kube.get("pods", "p", "default")
    later["spec"]["activeDeadlineSeconds"] = 100  # every top-level field the stale body sends differs now
    later["metadata"]["labels"]["a"] = "2"
    kube.update("pods", later, "default")
    kube.patch("pods", "p", {"status": {"phase": "Running"}}, "default", subresource="status")
    change(body["spec"])
    rt = kube.resolve("pods")
    record = kube._data[rt.storage][("default", "p")]
    based_on = kube.hub.stored_at(int(body["metadata"]["resourceVersion"]), rt.storage)
    assert based_on is not None and based_on["metadata"]["resourceVersion"] == body["metadata"]["resourceVersion"]
    try:
        expected = decoding.check_body(rt, body)
    except errors.BadRequest as exc:
        with pytest.raises(errors.BadRequest) as info:
            check_update_body(rt, body, record, based_on)
        assert info.value.status == exc.status
        with pytest.raises(errors.BadRequest) as info:
            kube.update("pods", body, "default")
        assert info.value.status == exc.status
        return
    assert check_update_body(rt, body, record, based_on) == expected
    with pytest.raises(errors.Conflict):
        kube.update("pods", body, "default", field_validation="Warn")
    assert kube.audit.entries[-1].warnings == [f'unknown field "{path}"' for path in expected]


def test_the_history_finds_the_version_a_revision_stored(kube: Store, stored: dict) -> None:
    rv = int(stored["metadata"]["resourceVersion"])
    kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    found = kube.hub.stored_at(rv, "/pods")
    assert found is not None and found["metadata"]["name"] == "p"
    assert kube.hub.stored_at(rv, "/configmaps") is None  # another storage's revision
    assert kube.hub.stored_at(rv + 1, "/pods") is None
    assert kube.hub.stored_at(int(kube.resource_version) + 1, "/pods") is None
    kube.delete("pods", "p", "default", grace_period_seconds=0)
    assert kube.hub.stored_at(int(kube.resource_version), "/pods") is None  # a delete stores nothing
    kube.hub.compact(int(kube.resource_version))
    assert kube.hub.stored_at(rv, "/pods") is None


CONFIG_MAP = {"metadata": {"name": "c", "labels": {"a": "1"}}, "data": {"k": "v"}, "binaryData": {"b": "aGk="}}


@pytest.mark.parametrize("change", [
    lambda body: None,  # only the metadata changed
    lambda body: body["data"].__setitem__("k", 1),  # a flat field, always decoded: 400
    lambda body: body.__setitem__("binaryData", {"b": "a*"}),  # base64: 400
    lambda body: body.__setitem__("binaryData", {"b": "aGk="}),  # equal, but a field of its own
    lambda body: body.__setitem__("bogus", {"x": 1}),  # unknown at the top: dropped, reported
    lambda body: body["metadata"].__setitem__("bogus", 1),  # unknown below
    lambda body: body["metadata"].__setitem__("labels", {"a": 1}),  # wrong type in the changed field: 400
    lambda body: body.__setitem__("immutable", "yes"),  # a flat scalar of the wrong type: 400
])
def test_a_configmap_put_over_the_stored_object_decodes_as_a_whole_decode(kube: Store, change) -> None:
    kube.create("configmaps", copy.deepcopy(CONFIG_MAP), "default")
    answer = kube.get("configmaps", "c", "default")
    answer["metadata"]["annotations"] = {"n": "1"}
    kube.update("configmaps", answer, "default")
    rt = kube.resolve("configmaps")
    record = kube._data[rt.storage][("default", "c")]
    body = kube.get("configmaps", "c", "default")
    body["metadata"]["annotations"]["n"] = "2"
    body["binaryData"] = record.obj["binaryData"]  # the stored field itself, as a body built over a cache has
    change(body)
    try:
        whole = decoding.decode_body(rt, body)
    except errors.ApiError as exc:
        with pytest.raises(type(exc)) as info:
            decode_update_body(rt, body, record)
        assert (info.value.status, str(info.value)) == (exc.status, str(exc))
        return
    value, unknown = decode_update_body(rt, body, record)
    assert (json.dumps(value), unknown) == (json.dumps(whole.value), whole.unknown)
    value["binaryData"]["b"] = "changed"
    assert record.obj["binaryData"] == {"b": "aGk="}  # a copy, not the stored field
    assert value["metadata"]["annotations"] == {"n": "2"}


def test_a_put_that_sends_the_stored_managed_fields_back_keeps_them_and_decodes_the_rest(kube: Store,
                                                                                       stored: dict) -> None:
    rt = kube.resolve("pods")
    record = kube._data[rt.storage][("default", "p")]
    body = json.loads(json.dumps(stored))
    body["metadata"]["labels"]["a"] = "2"
    body["metadata"]["bogus"] = 1
    whole = decoding.decode_body(rt, body)
    value, unknown = decode_update_body(rt, body, record)
    assert (json.dumps(value), unknown) == (json.dumps(whole.value), whole.unknown)
    assert value["metadata"]["managedFields"] is record.obj["metadata"]["managedFields"]  # carried, not copied
    body["metadata"]["managedFields"][0]["operation"] = 1  # no longer the stored entries: decoded, a 400
    with pytest.raises(errors.BadRequest, match="ManagedFieldsEntry.metadata.managedFields.operation"):
        decode_update_body(rt, body, record)
