"""The store's positional entry constructor against the dataclass's keyword form."""

from __future__ import annotations

from dataclasses import fields

import pytest

from fakekube.audit import AuditEntry
from fakekube.audit.entry import request_entry


@pytest.mark.parametrize("extra", [
    {},
    {"dry_run": True},
    {"based_on": "12", "request_rv": "12"},
    {"patch_type": "application/merge-patch+json", "based_on": "3"},
    {"dry_run": True, "based_on": "7", "patch_type": "application/json-patch+json", "request_rv": "8"},
])
def test_request_entry_is_the_keyword_construction(extra: dict[str, object]) -> None:
    common = {"seq": 4, "time": 12.5, "actor": "ctl", "verb": "patch", "group": "apps", "resource": "deployments",
              "namespace": "ns", "name": "web", "subresource": "status", "version": "v1"}
    fast = request_entry(**common, **extra)  # type: ignore[arg-type]
    assert fast == AuditEntry(**common, **extra)  # type: ignore[arg-type]
    # Every field, by name: a reordering of the dataclass's fields would put a value in the wrong one.
    for f in fields(AuditEntry):
        assert getattr(fast, f.name) == getattr(AuditEntry(**common, **extra), f.name), f.name  # type: ignore[arg-type]


def test_request_entries_own_their_lists() -> None:
    a = request_entry(1, 0.0, "a", "get", "", "pods", "ns", "p", None, "v1")
    b = request_entry(2, 0.0, "a", "get", "", "pods", "ns", "p", None, "v1")
    a.notes.append("x")
    a.warnings.append("w")
    assert b.notes == [] and b.warnings == []
