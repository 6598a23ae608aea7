"""Name rules and ObjectMeta validation (apimachinery pkg/util/validation, pkg/api/validation)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.errors import FieldError
from fakekube.namerules import (
    generate_name,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    name_is_dns1035_label,
    name_is_dns_label,
    name_is_dns_subdomain,
)
from fakekube.validation import (
    validate_label_value,
    validate_object_meta,
    validate_object_meta_update,
    validate_qualified_name,
)

SUBDOMAIN_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_ERR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
DNS1035_ERR = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
KEY_ERR = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
VALUE_ERR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("example.com", []),
        ("a", []),
        ("0-a.b-9", []),
        ("a" * 253, []),
        ("a" * 254, ["must be no more than 253 characters"]),
        ("A", [SUBDOMAIN_ERR]),
        ("-a", [SUBDOMAIN_ERR]),
        ("a-", [SUBDOMAIN_ERR]),
        ("a..b", [SUBDOMAIN_ERR]),
        ("a_b", [SUBDOMAIN_ERR]),
        ("", [SUBDOMAIN_ERR]),
        ("a\n", [SUBDOMAIN_ERR]),  # Go's "$" does not accept a trailing newline
        ("A" * 254, ["must be no more than 253 characters", SUBDOMAIN_ERR]),
    ],
)
def test_is_dns1123_subdomain(value: str, errors: list[str]) -> None:
    assert is_dns1123_subdomain(value) == errors


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("my-name", []),
        ("123-abc", []),
        ("a" * 63, []),
        ("a" * 64, ["must be no more than 63 characters"]),
        ("a.b", ["must not contain dots"]),
        ("A", [LABEL_ERR]),
        ("a_b", [LABEL_ERR]),
        ("", [LABEL_ERR]),
    ],
)
def test_is_dns1123_label(value: str, errors: list[str]) -> None:
    assert is_dns1123_label(value) == errors


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("my-name", []),
        ("abc-123", []),
        ("1abc", [DNS1035_ERR]),
        ("a.b", [DNS1035_ERR]),
        ("a" * 64, ["must be no more than 63 characters"]),
    ],
)
def test_is_dns1035_label(value: str, errors: list[str]) -> None:
    assert is_dns1035_label(value) == errors


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("app", []),
        ("MyName", []),
        ("my.name_x-1", []),
        ("example.com/app", []),
        ("a" * 63, []),
        ("a" * 64, ["name part must be no more than 63 bytes"]),
        ("", ["name part must be non-empty", "name part " + KEY_ERR]),
        ("/a", ["prefix part must be non-empty"]),
        ("Example.com/a", ["prefix part " + SUBDOMAIN_ERR]),
        ("a/", ["name part must be non-empty", "name part " + KEY_ERR]),
        (
            "a/b/c",
            [
                "a valid label key "
                + KEY_ERR
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ],
        ),
        ("_a", ["name part " + KEY_ERR]),
    ],
)
def test_is_qualified_name(value: str, errors: list[str]) -> None:
    assert is_qualified_name(value) == errors


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("", []),
        ("v1.2_x-3", []),
        ("a" * 63, []),
        ("a" * 64, ["must be no more than 63 bytes"]),
        ("-a", [VALUE_ERR]),
        ("a b", [VALUE_ERR]),
    ],
)
def test_is_valid_label_value(value: str, errors: list[str]) -> None:
    assert is_valid_label_value(value) == errors


@pytest.mark.parametrize(
    ("fn", "name", "prefix", "ok"),
    [
        (name_is_dns_subdomain, "foo-", True, True),
        (name_is_dns_subdomain, "foo-", False, False),
        (name_is_dns_subdomain, "foo", True, True),
        (name_is_dns_subdomain, "a-", True, True),  # masked to "a"
        (name_is_dns_subdomain, "-", True, False),  # too short to mask
        (name_is_dns_subdomain, "Ab-", True, False),  # masked to "Aa": still upper case
        (name_is_dns_label, "ns-", True, True),
        (name_is_dns_label, "a.b-", True, False),
        (name_is_dns1035_label, "svc-", True, True),
        (name_is_dns1035_label, "1svc-", True, False),
    ],
)
def test_name_functions_prefix_mode(fn: Any, name: str, prefix: bool, ok: bool) -> None:
    assert (fn(name, prefix) == []) is ok


def test_mask_trailing_dash_replaces_two_characters() -> None:
    # "xA-" becomes "xa" (the upper-case A is dropped with the dash), so it is accepted as a prefix.
    assert name_is_dns_subdomain("xA-", True) == []
    assert name_is_dns_subdomain("xA", False) == [SUBDOMAIN_ERR]


def test_field_helpers() -> None:
    assert validate_qualified_name("a/b/c", "f")[0].field == "f"
    assert validate_qualified_name(3, "f")[0].type == "FieldValueTypeInvalid"
    [err] = validate_label_value("-x", "metadata.labels")
    assert err.body == 'Invalid value: "-x": ' + VALUE_ERR


# ------------------------------------------------------------------------------------------ ObjectMeta


def causes(errors: list[FieldError]) -> list[tuple[str, str, str]]:
    return [(e.type, e.field, e.body) for e in errors]


@pytest.mark.parametrize(
    ("meta", "namespaced", "expected"),
    [
        ({"name": "ok", "namespace": "default"}, True, []),
        ({"name": "ok"}, False, []),
        (
            {"namespace": "default"},
            True,
            [("FieldValueRequired", "metadata.name", "Required value: name or generateName is required")],
        ),
        ({"name": "ok"}, True, [("FieldValueRequired", "metadata.namespace", "Required value")]),
        (
            {"name": "ok", "namespace": "x"},
            False,
            [("FieldValueForbidden", "metadata.namespace", "Forbidden: not allowed on this type")],
        ),
        (
            {"name": "Bad", "namespace": "default"},
            True,
            [("FieldValueInvalid", "metadata.name", 'Invalid value: "Bad": ' + SUBDOMAIN_ERR)],
        ),
        (
            {"name": "ok", "namespace": "a.b"},
            True,
            [("FieldValueInvalid", "metadata.namespace", 'Invalid value: "a.b": must not contain dots')],
        ),
        (
            {"generateName": "Gen-", "name": "gen-abcde", "namespace": "default"},
            True,
            [("FieldValueInvalid", "metadata.generateName", 'Invalid value: "Gen-": ' + SUBDOMAIN_ERR)],
        ),
        (
            {"name": "ok", "namespace": "d", "generation": -1},
            True,
            [
                (
                    "FieldValueInvalid",
                    "metadata.generation",
                    "Invalid value: -1: must be greater than or equal to 0",
                )
            ],
        ),
        (
            {"name": "ok", "namespace": "d", "labels": {"a b": "ok", "k": "-v"}},
            True,
            [
                ("FieldValueInvalid", "metadata.labels", 'Invalid value: "a b": name part ' + KEY_ERR),
                ("FieldValueInvalid", "metadata.labels", 'Invalid value: "-v": ' + VALUE_ERR),
            ],
        ),
        (
            {"name": "ok", "namespace": "d", "annotations": {"Example.COM/Key": "any value at all !"}},
            True,
            [],  # annotation keys are lower-cased before the check
        ),
        (
            {"name": "ok", "namespace": "d", "annotations": {"a": "x" * (256 * 1024)}},
            True,
            [("FieldValueTooLong", "metadata.annotations", "Too long: may not be more than 262144 bytes")],
        ),
        (
            {"name": "ok", "namespace": "d", "finalizers": ["example.com/f", "bad key"]},
            True,
            [("FieldValueInvalid", "metadata.finalizers", 'Invalid value: "bad key": name part ' + KEY_ERR)],
        ),
        (
            {"name": "ok", "namespace": "d", "finalizers": ["orphan", "foregroundDeletion"]},
            True,
            [
                (
                    "FieldValueInvalid",
                    "metadata.finalizers",
                    'Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion '
                    "cannot be both set",
                )
            ],
        ),
        (
            {"name": "ok", "namespace": "d", "ownerReferences": [{}]},
            True,
            [
                (
                    "FieldValueRequired",
                    "metadata.ownerReferences[0].apiVersion",
                    "Required value: must not be empty",
                ),
                (
                    "FieldValueRequired",
                    "metadata.ownerReferences[0].kind",
                    "Required value: must not be empty",
                ),
                (
                    "FieldValueRequired",
                    "metadata.ownerReferences[0].name",
                    "Required value: must not be empty",
                ),
                (
                    "FieldValueRequired",
                    "metadata.ownerReferences[0].uid",
                    "Required value: must not be empty",
                ),
            ],
        ),
        (
            {
                "name": "ok",
                "namespace": "d",
                "ownerReferences": [{"apiVersion": "a/b/c", "kind": "K", "name": "n", "uid": "u"}],
            },
            True,
            [
                (
                    "FieldValueInvalid",
                    "metadata.ownerReferences[0].apiVersion",
                    'Invalid value: "a/b/c": must be <group>/<version> or <version>',
                )
            ],
        ),
    ],
)
def test_validate_object_meta(meta: dict, namespaced: bool, expected: list[tuple[str, str, str]]) -> None:
    assert (
        causes(validate_object_meta(meta, namespaced=namespaced, name_validator=name_is_dns_subdomain))
        == expected
    )


def test_validate_object_meta_two_controllers() -> None:
    refs = [
        {"apiVersion": "v1", "kind": "A", "name": "a", "uid": "1", "controller": True},
        {"apiVersion": "v1", "kind": "B", "name": "b", "uid": "2", "controller": True},
        {"apiVersion": "v1", "kind": "C", "name": "c", "uid": "3", "controller": False},
    ]
    [err] = validate_object_meta({"name": "x", "namespace": "d", "ownerReferences": refs}, namespaced=True)
    assert err.field == "metadata.ownerReferences"
    assert (
        err.detail
        == 'Only one reference can have Controller set to true. Found "true" in references for A/a and B/b'
    )


def test_validate_object_meta_name_validator_used() -> None:
    errs = validate_object_meta({"name": "1svc"}, namespaced=False, name_validator=name_is_dns1035_label)
    assert causes(errs) == [("FieldValueInvalid", "metadata.name", 'Invalid value: "1svc": ' + DNS1035_ERR)]
    errs = validate_object_meta({"name": "a.b"}, namespaced=False, name_validator=name_is_dns_label)
    assert causes(errs) == [
        ("FieldValueInvalid", "metadata.name", 'Invalid value: "a.b": must not contain dots')
    ]


@pytest.mark.parametrize(
    "meta",
    [
        {"name": 5, "namespace": "d"},
        {"name": "x", "namespace": "d", "labels": ["a"]},
        {"name": "x", "namespace": "d", "labels": {"a": 1}},
        {"name": "x", "namespace": "d", "annotations": "a"},
        {"name": "x", "namespace": "d", "finalizers": "a"},
        {"name": "x", "namespace": "d", "finalizers": [1]},
        {"name": "x", "namespace": "d", "ownerReferences": {"a": 1}},
        {"name": "x", "namespace": "d", "ownerReferences": [3]},
        {
            "name": "x",
            "namespace": "d",
            "ownerReferences": [{"apiVersion": 1, "kind": [], "name": {}, "uid": None}],
        },
        {"name": "x", "namespace": "d", "generation": "1"},
        {"name": "x", "namespace": "d", "generation": 1.5},
        {"name": "x", "namespace": "d", "managedFields": [{"operation": "Patch"}]},
        [],
        "metadata",
    ],
)
def test_wrong_types_become_field_errors(meta: Any) -> None:
    errs = validate_object_meta(meta, namespaced=True)
    assert errs
    assert all(isinstance(e, FieldError) for e in errs)
    assert all(isinstance(e.body, str) for e in errs)


# ---------------------------------------------------------------------------------------------- update

OLD = {
    "name": "a",
    "namespace": "d",
    "uid": "u1",
    "creationTimestamp": "2024-01-01T00:00:00Z",
    "generation": 3,
    "resourceVersion": "7",
}


@pytest.mark.parametrize(
    ("changes", "old_changes", "expected"),
    [
        ({}, {}, []),
        ({"generation": 4, "labels": {"x": "y"}}, {}, []),
        (
            {"name": "b"},
            {},
            [("FieldValueInvalid", "metadata.name", 'Invalid value: "b": field is immutable')],
        ),
        (
            {"namespace": "e"},
            {},
            [("FieldValueInvalid", "metadata.namespace", 'Invalid value: "e": field is immutable')],
        ),
        (
            {"uid": "u2"},
            {},
            [("FieldValueInvalid", "metadata.uid", 'Invalid value: "u2": field is immutable')],
        ),
        (
            {"creationTimestamp": "2025-01-01T00:00:00Z"},
            {},
            [
                (
                    "FieldValueInvalid",
                    "metadata.creationTimestamp",
                    'Invalid value: "2025-01-01T00:00:00Z": field is immutable',
                )
            ],
        ),
        (
            {"generation": 2},
            {},
            [("FieldValueInvalid", "metadata.generation", "Invalid value: 2: must not be decremented")],
        ),
        (
            {"finalizers": ["a", "z", "b"], "deletionTimestamp": "2024-02-02T00:00:00Z"},
            {"finalizers": ["a"], "deletionTimestamp": "2024-02-02T00:00:00Z"},
            [
                (
                    "FieldValueForbidden",
                    "metadata.finalizers",
                    "Forbidden: no new finalizers can be added if the object is being deleted, "
                    'found new finalizers []string{"b", "z"}',
                )
            ],
        ),
        ({"finalizers": ["x"]}, {}, []),  # not deleting: adding is fine
        (
            {"deletionTimestamp": "2024-02-02T00:00:00Z"},
            {},
            [
                (
                    "FieldValueInvalid",
                    "metadata.deletionTimestamp",
                    'Invalid value: "2024-02-02T00:00:00Z": field is immutable',
                )
            ],
        ),
        (
            {"deletionTimestamp": None, "deletionGracePeriodSeconds": None},
            {"deletionTimestamp": "2024-02-02T00:00:00Z", "deletionGracePeriodSeconds": 0},
            [
                (
                    "FieldValueInvalid",
                    "metadata.deletionTimestamp",
                    "Invalid value: null: field is immutable",
                ),
                (
                    "FieldValueInvalid",
                    "metadata.deletionGracePeriodSeconds",
                    "Invalid value: null: field is immutable",
                ),
            ],
        ),
    ],
)
def test_validate_object_meta_update(changes: dict, old_changes: dict, expected: list) -> None:
    old = {**OLD, **old_changes}
    new = {**old, **changes}
    assert causes(validate_object_meta_update(new, old)) == expected


def test_update_requires_resource_version_when_asked() -> None:
    new = {**OLD, "resourceVersion": ""}
    assert validate_object_meta_update(new, OLD) == []
    [err] = validate_object_meta_update(new, OLD, require_resource_version=True)
    assert str(err) == 'metadata.resourceVersion: Invalid value: "": must be specified for an update'


# ---------------------------------------------------------------------------------------- generateName


def test_generate_name_alphabet_and_length() -> None:
    rng = random.Random(42)
    for prefix in ("", "pod-", "x" * 58, "y" * 100):
        name = generate_name(prefix, rng)
        kept = prefix[:58]
        assert name.startswith(kept)
        suffix = name[len(kept) :]
        assert len(suffix) == 5
        assert set(suffix) <= set("bcdfghjklmnpqrstvwxz2456789")
        assert len(name) <= 63


def test_generate_name_is_deterministic_per_seed() -> None:
    assert generate_name("a-", random.Random(1)) == generate_name("a-", random.Random(1))
    names = {generate_name("a-", random.Random(seed)) for seed in range(50)}
    assert len(names) > 45


# -------------------------------------------------------------------------------------- property test

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
meta_keys = st.sampled_from(
    [
        "name",
        "generateName",
        "namespace",
        "labels",
        "annotations",
        "finalizers",
        "ownerReferences",
        "generation",
        "managedFields",
        "uid",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "resourceVersion",
    ]
)
random_meta = st.one_of(json_values, st.dictionaries(meta_keys, json_values, max_size=8))


@settings(max_examples=300, deadline=None)
@given(meta=random_meta, old=random_meta, namespaced=st.booleans())
def test_random_json_never_raises(meta: Any, old: Any, namespaced: bool) -> None:
    for err in validate_object_meta(meta, namespaced=namespaced):
        assert isinstance(err, FieldError)
        assert isinstance(err.body, str)
    for err in validate_object_meta_update(meta, old):
        assert isinstance(err, FieldError)
        assert isinstance(err.body, str)


# ---------------------------------------------------------------- update checks: only changed fields looked at


def _every_update_check(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """``ValidateObjectMetaAccessorUpdate`` written out with no skipping: every rule, every field, in
    upstream's order — the reference ``validate_object_meta_update``'s one pass must agree with."""
    from fakekube import validation as v

    errs: list[FieldError] = []
    if old.get("deletionTimestamp") is not None:
        new_fins, old_fins = new.get("finalizers") or [], old.get("finalizers") or []
        if isinstance(new_fins, list) and isinstance(old_fins, list):
            extra = sorted({f for f in new_fins if isinstance(f, str)} - {f for f in old_fins if isinstance(f, str)})
            if extra:
                errs.append(v.forbidden("metadata.finalizers", "no new finalizers can be added if the object is "
                                        "being deleted, found new finalizers " + v._go_string_slice(extra)))
    generation = v._int_field(new, "generation", "metadata", errs)
    if generation is not None:
        if generation < 0:
            errs.append(v.invalid("metadata.generation", generation, v.IS_NEGATIVE))
        if isinstance(old.get("generation"), int) and generation < old["generation"]:
            errs.append(v.invalid("metadata.generation", generation, "must not be decremented"))
    for name in ("name", "namespace", "uid", "creationTimestamp"):
        errs += v._immutable(new.get(name) or "", old.get(name) or "", f"metadata.{name}")
    for name in ("deletionTimestamp", "deletionGracePeriodSeconds"):
        errs += v._immutable(new.get(name), old.get(name), f"metadata.{name}")
    for name, check in v._CONTENT_CHECKS.items():
        if new.get(name) != old.get(name):
            errs += check(new.get(name), f"metadata.{name}")
    return errs


def test_unchanged_bad_generation_is_still_rejected() -> None:
    # Generation is checked even when the update leaves it as it was.
    old = {**OLD, "generation": -1}
    assert causes(validate_object_meta_update(dict(old), old)) == [
        ("FieldValueInvalid", "metadata.generation", "Invalid value: -1: must be greater than or equal to 0")]


def test_a_field_the_update_drops_is_still_checked() -> None:
    old = {**OLD, "deletionTimestamp": "2024-02-02T00:00:00Z", "labels": {"a": "b"}}
    new = {k: v for k, v in old.items() if k not in ("deletionTimestamp", "uid")}
    assert [f for _, f, _ in causes(validate_object_meta_update(new, old))] == [
        "metadata.uid", "metadata.deletionTimestamp"]


@settings(max_examples=400, deadline=None)
@given(changes=st.dictionaries(meta_keys, json_values, max_size=5),
       old_changes=st.dictionaries(meta_keys, json_values, max_size=5),
       dropped=st.lists(meta_keys, max_size=3))
def test_one_pass_over_changed_fields_agrees_with_every_check(changes: dict, old_changes: dict,
                                                             dropped: list) -> None:
    old = {**OLD, "labels": {"app": "x"}, "finalizers": ["f"], "deletionTimestamp": "2024-02-02T00:00:00Z",
           **old_changes}
    new = {k: v for k, v in {**old, **changes}.items() if k not in dropped}
    assert causes(validate_object_meta_update(new, old)) == causes(_every_update_check(new, old))


def test_a_non_finite_generation_is_no_integer() -> None:
    for bad in (float("inf"), float("-inf"), float("nan")):
        new = {**OLD, "generation": bad}
        assert [(r, f) for r, f, _ in causes(validate_object_meta_update(new, OLD))] == [
            ("FieldValueTypeInvalid", "metadata.generation")]


class _Text(str):
    """A str subclass: the known-valid shortcut takes exact strings only."""


def test_label_and_annotation_maps_known_valid_still_report_what_is_wrong() -> None:
    from fakekube.validation import TOTAL_ANNOTATION_SIZE_LIMIT, validate_annotations, validate_labels

    assert validate_labels({"app": "web", "Tier": "x"}) == []  # both now known to pass
    assert validate_annotations({"Example.com/Owner": "a"}) == []
    # Known keys, a value that fails (or is not a string), a new key that fails: all still reported.
    assert [e.value for e in validate_labels({"app": "web", "Tier": "-x"})] == ["-x"]
    assert [e.type for e in validate_labels({"app": 5})] == ["FieldValueTypeInvalid"]
    assert [e.value for e in validate_labels({"app": "web", "bad key": "x"})] == ["bad key"]
    assert validate_labels({_Text("app"): _Text("web")}) == []
    big = "v" * (TOTAL_ANNOTATION_SIZE_LIMIT // 2)
    assert [e.type for e in validate_annotations({"example.com/owner": big, "Example.com/Owner": big})] == [
        "FieldValueTooLong"]
    assert [e.type for e in validate_annotations({"example.com/owner": None})] == ["FieldValueTypeInvalid"]
    assert [e.value for e in validate_annotations({"example.com/owner": "a", "/x": "b"})] == ["/x"]


@pytest.mark.parametrize("seed", [0, 1, 2, 42, "names", None])
def test_generate_name_draws_what_random_choice_draws(seed: Any) -> None:
    """Same seed, same names: the drawing loop is random.Random.choice's, character for character."""
    ours, theirs = random.Random(seed), random.Random(seed)
    theirs.setstate(ours.getstate())
    for i in range(500):
        prefix = "p" * (i % 70)
        expected = prefix[:58] + "".join(theirs.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
        assert generate_name(prefix, ours) == expected


def test_generate_name_asks_a_random_subclass_to_choose() -> None:
    class Fixed(random.Random):
        def choice(self, seq: Any) -> Any:
            return seq[0]

    assert generate_name("x-", Fixed(1)) == "x-bbbbb"
