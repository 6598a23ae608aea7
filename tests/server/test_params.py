"""List and write options as kube-apiserver v1.37.2 validates them (answers observed from the oracle):
``server.listoptions``, ``server.options`` and the storage's resourceVersion parse."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.server import listoptions
from fakekube.server.options import check_write_options
from fakekube.server.params import Query
from fakekube.verbs.read import parse_resource_version


def _invalid(call) -> str:
    with pytest.raises(errors.Invalid) as caught:
        call()
    assert caught.value.code == 422
    return caught.value.message


def _list(query: str, *, watch: bool = False) -> listoptions.ListOptions:
    return listoptions.decode(Query(query), watch=watch)


def _write(kind: str, query: str, patch_type: str | None = None) -> None:
    q = Query(query)
    check_write_options(kind, field_manager=q.str("fieldManager"), dry_run=q.all("dryRun"),
                        field_validation=q.str("fieldValidation"), patch_type=patch_type,
                        force=q.bool("force", default=None))


def test_list_options() -> None:
    assert _invalid(lambda: _list("resourceVersionMatch=Exact")) == (
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden '
        "unless resourceVersion is provided")
    assert _invalid(lambda: _list("resourceVersionMatch=Foo")) == (
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden '
        'unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "Foo": supported values: '
        '"Exact", "NotOlderThan", ""]')
    assert _invalid(lambda: _list("resourceVersion=0&resourceVersionMatch=Exact")) == (
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is '
        'forbidden for resourceVersion "0"')
    assert _invalid(lambda: _list("sendInitialEvents=x")) == (
        'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list')
    _list("resourceVersion=5&resourceVersionMatch=NotOlderThan")
    _list("sendInitialEvents=true&resourceVersionMatch=NotOlderThan", watch=True)


def test_write_options() -> None:
    assert _invalid(lambda: _write("CreateOptions", "fieldManager=" + "m" * 129)) == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes')
    assert _invalid(lambda: _write("CreateOptions", "fieldManager=%00")) == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "\\x00": invalid character U+0000 '
        "(at position 0)")
    assert _invalid(lambda: _write("PatchOptions", "force=x", patch_type="application/merge-patch+json")) == (
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch')
    assert _invalid(lambda: _write("PatchOptions", "", patch_type="application/apply-patch+yaml")) == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch')
    assert _invalid(lambda: _write("UpdateOptions", "dryRun=Some")).startswith(
        'UpdateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value:')
    _write("UpdateOptions", "fieldManager=kubectl&dryRun=All&fieldValidation=Strict")


def _rv_error(value: str) -> str:
    with pytest.raises(ValueError) as caught:
        parse_resource_version(value)
    return str(caught.value)


def test_resource_versions() -> None:
    assert _rv_error("abc") == (
        'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax')
    big = "9" * 5000
    assert _rv_error(big) == (
        f'resourceVersion: Invalid value: "{big}": strconv.ParseUint: parsing "{big}": value out of range')
    assert _rv_error("-1").endswith('parsing "-1": invalid syntax')
    assert parse_resource_version("18446744073709551615") == 2**64 - 1
    assert parse_resource_version("") == 0
