"""fakekube.server.params: options as kube-apiserver v1.37.2 validates them (answers observed from the oracle)."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.server.params import (
    Query,
    resource_version_error,
    validate_list_options,
    validate_write_options,
)


def _invalid(call) -> str:
    with pytest.raises(errors.Invalid) as caught:
        call()
    assert caught.value.code == 422
    return caught.value.message


def test_list_options() -> None:
    assert _invalid(lambda: validate_list_options(Query("resourceVersionMatch=Exact"), watch=False)) == (
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden '
        "unless resourceVersion is provided")
    assert _invalid(lambda: validate_list_options(Query("resourceVersionMatch=Foo"), watch=False)) == (
        'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden '
        'unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "Foo": supported values: '
        '"Exact", "NotOlderThan", ""]')
    assert _invalid(lambda: validate_list_options(Query("resourceVersion=0&resourceVersionMatch=Exact"),
                                                  watch=False)) == (
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is '
        'forbidden for resourceVersion "0"')
    assert _invalid(lambda: validate_list_options(Query("sendInitialEvents=x"), watch=False)) == (
        'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list')
    validate_list_options(Query("resourceVersion=5&resourceVersionMatch=NotOlderThan"), watch=False)
    validate_list_options(Query("sendInitialEvents=true&resourceVersionMatch=NotOlderThan"), watch=True)


def test_write_options() -> None:
    assert _invalid(lambda: validate_write_options("CreateOptions", Query("fieldManager=" + "m" * 129))) == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes')
    assert _invalid(lambda: validate_write_options("CreateOptions", Query("fieldManager=%00"))) == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "\\x00": invalid character U+0000 '
        "(at position 0)")
    assert _invalid(lambda: validate_write_options("PatchOptions", Query("force=x"),
                                                   patch_type="application/merge-patch+json")) == (
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch')
    assert _invalid(lambda: validate_write_options("PatchOptions", Query(""),
                                                   patch_type="application/apply-patch+yaml")) == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch')
    validate_write_options("UpdateOptions", Query("fieldManager=kubectl&dryRun=All&fieldValidation=Strict"))


def test_resource_versions() -> None:
    assert resource_version_error("abc") == (
        'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax')
    big = "9" * 5000
    assert resource_version_error(big) == (
        f'resourceVersion: Invalid value: "{big}": strconv.ParseUint: parsing "{big}": value out of range')
    assert resource_version_error("-1").endswith('parsing "-1": invalid syntax')
    assert resource_version_error("18446744073709551615") is None
    assert resource_version_error("") is None
