"""A ControllerRevision's ``data`` (a runtime.RawExtension) is stored as the bytes the request sent and compared
byte for byte when it is immutable. Observed on kube-apiserver v1.37.2: created from ``{"spec": {}}`` (spaced,
as Python's json writes it), every JSON, merge or strategic patch is a 422 ``data: Invalid value: {"spec":{}}:
field is immutable`` (the patch path re-encodes the stored object compactly) while a PUT of the same text and an
apply work; a PUT of the compact text is refused; created compact, patches work, unless a string holds ``<``,
which Go's encoder escapes. Sources: apimachinery@v0.37.2 pkg/runtime/extension.go, apiserver@v0.37.2
pkg/endpoints/handlers/patch.go, kubernetes@v1.37.2 pkg/apis/apps/validation/validation.go
(ValidateControllerRevisionUpdate)."""

from __future__ import annotations

import json

import pytest

from fakekube import decoding, errors
from fakekube.store import Store
from fakekube.verbs.rawdata import go_compact, member_text

_CR = "controllerrevisions"


def _body(data: str, name: str = "cr", rv: str | None = None) -> dict:
    meta = f'{{"name":"{name}"' + (f',"resourceVersion":"{rv}"' if rv else "") + "}"
    return decoding.json_body(f'{{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{meta},'
                              f'"revision":1,"data":{data}}}')


def test_member_text_and_go_compact() -> None:
    text = '{"a": 1, "data" : {"spec": {"x": "a b<"}} , "data": {"z": [1, 2]}}'
    assert member_text(text, "data") == '{"z": [1, 2]}'  # the last one, as Go decodes
    assert member_text(text, "b") is None
    assert go_compact('{"spec": {"x": "a b<&>"}}') == '{"spec":{"x":"a b\\u003c\\u0026\\u003e"}}'


@pytest.mark.parametrize("patch_type, patch", [
    ("application/merge-patch+json", {"metadata": {"labels": {"a": "b"}}}),
    ("application/strategic-merge-patch+json", {"metadata": {"labels": {"a": "b"}}}),
    ("application/json-patch+json", [{"op": "add", "path": "/metadata/labels", "value": {"a": "b"}}]),
])
def test_spaced_data_refuses_every_patch(kube: Store, patch_type: str, patch: object) -> None:
    created = kube.create(_CR, _body('{"spec": {}}'), "default")
    with pytest.raises(errors.Invalid) as refused:
        kube.patch(_CR, "cr", patch, "default", patch_type=patch_type)
    status = refused.value.status
    assert status["message"] == ('ControllerRevision.apps "cr" is invalid: data: Invalid value: {"spec":{}}: '
                                 'field is immutable')
    assert kube.get(_CR, "cr", "default")["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]


def test_spaced_data_takes_a_put_of_the_same_text_and_an_apply(kube: Store) -> None:
    created = kube.create(_CR, _body('{"spec": {}}'), "default")
    rv = created["metadata"]["resourceVersion"]
    with pytest.raises(errors.Invalid):
        kube.update(_CR, _body('{"spec":{}}', rv=rv), "default")
    labelled = json.loads(json.dumps(created))
    labelled["metadata"]["labels"] = {"a": "b"}
    put = kube.update(_CR, decoding.json_body(json.dumps(labelled)), "default")  # spaced again
    applied = kube.patch(_CR, "cr", {"apiVersion": "apps/v1", "kind": "ControllerRevision",
                                     "metadata": {"name": "cr"}, "revision": 1, "data": {"spec": {}}},
                         "default", patch_type="application/apply-patch+yaml", field_manager="m", force=True)
    assert put["metadata"]["labels"] == applied["metadata"]["labels"] == {"a": "b"}
    with pytest.raises(errors.Invalid):  # the apply kept the stored bytes
        kube.patch(_CR, "cr", {"metadata": {"labels": {"b": "c"}}}, "default")


def test_compact_data_takes_patches_unless_go_escapes_it(kube: Store) -> None:
    kube.create(_CR, _body('{"b":1,"a":2}'), "default")
    assert kube.patch(_CR, "cr", {"metadata": {"labels": {"a": "b"}}}, "default")["metadata"]["labels"]
    kube.create(_CR, _body('{"x":"<"}', name="escaped"), "default")
    with pytest.raises(errors.Invalid):
        kube.patch(_CR, "escaped", {"metadata": {"labels": {"a": "b"}}}, "default")


def test_a_python_callers_body_is_compact(kube: Store) -> None:
    kube.create(_CR, {"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "cr"},
                      "revision": 1, "data": {"spec": {}}}, "default")
    assert kube.patch(_CR, "cr", {"metadata": {"labels": {"a": "b"}}}, "default")["metadata"]["labels"]


def test_a_deleted_objects_spellings_go_with_it(kube: Store) -> None:
    created = kube.create(_CR, _body('{"spec": {}}'), "default")
    assert created["metadata"]["uid"] in kube.raw_spellings
    kube.delete(_CR, "cr", "default")
    assert created["metadata"]["uid"] not in kube.raw_spellings
