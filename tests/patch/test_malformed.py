"""Malformed patches of every type: the right Status body, and the input document untouched."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.apimodel.patch_schemas import builtin_patch_schema as builtin_schema
from fakekube.jsonvalues import json_copy
from fakekube.patch import (
    APPLY_PATCH,
    CUSTOM_RESOURCE_PATCH_TYPES,
    JSON_PATCH,
    MERGE_PATCH,
    STRATEGIC_MERGE_PATCH,
    apply_patch,
)

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "resourceVersion": "7"},
       "spec": {"containers": [{"name": "app", "image": "a"}]}}
GENERIC = "the server rejected our request due to an error in our request"


def run(body, patch_type, *, custom=False):
    doc = json_copy(POD)
    with pytest.raises(errors.ApiError) as info:
        apply_patch(doc, body, patch_type, schema=builtin_schema("", "Pod"), custom=custom)
    assert doc == POD
    return info.value


def test_failed_test_op_is_422_generic_not_409():
    err = run('[{"op":"test","path":"/metadata/resourceVersion","value":"6"}]', JSON_PATCH)
    assert err.code == 422 and err.reason == "Invalid" and err.message == GENERIC


@pytest.mark.parametrize("body", ["{not json", '{"op":"add"}', "[1]"])
def test_undecodable_json_patch_is_400(body):
    err = run(body, JSON_PATCH)
    assert err.status["code"] == 400 and err.status["reason"] == "BadRequest"


def test_null_json_patch_changes_nothing():
    # Go decodes `null` into an empty patch (kube-apiserver v1.37.2 answers 200 with the object unchanged).
    doc = json_copy(POD)
    assert apply_patch(doc, "null", JSON_PATCH, schema=builtin_schema("", "Pod")) == POD


def test_too_many_operations_is_413():
    ops = ",".join(['{"op":"test","path":"/kind","value":"Pod"}'] * 10001)
    err = run(f"[{ops}]", JSON_PATCH)
    assert err.code == 413
    assert err.message == "The allowed maximum operations in a JSON patch is 10000, got 10001"


@pytest.mark.parametrize("body", ['[{"op":"remove","path":"/nope"}]', '[{"op":"jump","path":"/a"}]',
                                  '[{"op":"add","path":"/a/b/c","value":1}]'])
def test_failing_json_patch_operations_are_422(body):
    assert run(body, JSON_PATCH).code == 422


@pytest.mark.parametrize("body", ["{bad", "null", "5", '"x"'])
def test_bad_merge_patch_is_400(body):
    err = run(body, MERGE_PATCH)
    assert err.code == 400


def test_smp_on_custom_resource_is_415_with_the_accepted_list():
    err = run("{}", STRATEGIC_MERGE_PATCH, custom=True)
    assert err.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "the body of the request was in an unknown format - accepted media types include: "
                   "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
        "reason": "UnsupportedMediaType", "code": 415,
    }
    assert list(CUSTOM_RESOURCE_PATCH_TYPES)[-1] == APPLY_PATCH


def test_unknown_content_type_is_415():
    assert run("{}", "application/xml").code == 415


@pytest.mark.parametrize("body,code,text", [
    ('{"spec":{"containers":[{"image":"b"}]}}', 500, "does not contain declared merge key: name"),
    ('{"spec":{"containers":[{"$patch":"merge"}]}}', 500, "merging lists cannot yet be specified in the patch"),
    ('{"metadata":{"$patch":"merge"}}', 500, "unknown patch type: merge in map"),
    ('{"spec":{"$setElementOrder/containers":[{"name":"x"}],"containers":[{"name":"app"}]}}', 500,
     "doesn't match $setElementOrder list"),
    ('{"spec":{"$retainKeys":"nope"}}', 400, "invalid patch format of retainKeys"),
    ('{"spec":{"$retainKeys":["a"],"b":1}}', 400, "invalid patch format of retainKeys"),
    ('{"spec":{"$deleteFromPrimitiveListX/c":[1]}}', 400, "invalid patch format of primitive list"),
    ('{"metadata":{"finalizers":[["a"]]}}', 200, ""),
    ("[1,2]", 400, "cannot unmarshal array"),
    ("{x", 400, "invalid character"),
])
def test_strategic_errors(body, code, text):
    if code == 200:
        return  # brand-new value: stored as sent, no error (list-of-lists only fails when merging)
    err = run(body, STRATEGIC_MERGE_PATCH)
    assert err.code == code
    assert text in err.message
    if code == 500:
        assert err.reason == "" and "reason" not in err.status


def test_list_of_lists_in_a_merging_list_is_422():
    doc = {"metadata": {"finalizers": []}}
    with pytest.raises(errors.ApiError) as info:
        apply_patch(doc, '{"metadata":{"finalizers":[["b"]]}}', STRATEGIC_MERGE_PATCH,
                    schema=builtin_schema("", "Pod"))
    assert info.value.code == 422 and info.value.message == GENERIC
    # NewGenericServerResponse keeps the library's words out of the Status (observed on v1.37.2: details {})
    assert info.value.details == {} and info.value.status["details"] == {}
    assert info.value.detail == "lists of lists are not supported"
