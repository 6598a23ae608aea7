"""fakekube.typemeta: what kube-apiserver v1.37.2's codec makes of an apiVersion and kind (observed answers,
docs/malformed-input.md)."""

from __future__ import annotations

import pytest

from fakekube import typemeta
from fakekube.store import Store
from fakekube.typemeta import TypeMetaError, Verdict


@pytest.fixture(scope="module")
def registry():
    return Store().registry


def _configmaps(registry):
    return registry.get("", "v1", "configmaps")


@pytest.mark.parametrize(("doc", "message"), [
    ({"apiVersion": "v1", "kind": 5}, "couldn't get version/kind; json parse error: json: cannot unmarshal number "
                                      "into Go struct field .kind of type string"),
    ({"apiVersion": [1], "kind": 5}, "couldn't get version/kind; json parse error: json: cannot unmarshal array "
                                     "into Go struct field .apiVersion of type string"),
    ([1], 'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct '
          '{ APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'),
    ({"apiVersion": "a/b/c"}, "unexpected GroupVersion string: a/b/c"),
])
def test_interpret_refuses_as_the_meta_factory(doc, message) -> None:
    with pytest.raises(TypeMetaError) as caught:
        typemeta.interpret(doc)
    assert str(caught.value) == message


def test_interpret_reads_group_version_and_kind() -> None:
    assert typemeta.interpret(None) == ("", "", "")
    assert typemeta.interpret({"apiVersion": "/v1", "kind": "X"}) == ("", "v1", "X")
    assert typemeta.interpret({"apiVersion": "apps/"}) == ("apps", "", "")


@pytest.mark.parametrize(("group", "version", "kind", "outcome", "refusal"), [
    ("", "v1", "ConfigMap", Verdict.OK, None),
    ("", "v1", "Secret", Verdict.UNCONVERTIBLE, "converting (v1.Secret) to (core.ConfigMap): unknown conversion"),
    ("", "v1", "ConfigMapList", Verdict.UNCONVERTIBLE,
     "converting (v1.ConfigMapList) to (core.ConfigMap): unknown conversion"),
    ("", "v1", "Status", Verdict.UNCONVERTIBLE, "converting (v1.Status) to (core.ConfigMap): unknown conversion"),
    ("apps", "v1", "Status", Verdict.UNCONVERTIBLE, "converting (v1.Status) to (core.ConfigMap): unknown conversion"),
    ("policy", "v1", "Eviction", Verdict.UNCONVERTIBLE,
     "converting (v1.Eviction) to (core.ConfigMap): unknown conversion"),
    ("", "v1", "Foo", Verdict.NOT_REGISTERED,
     'no kind "Foo" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"'),
    ("", "v1", "PodStatusResult", Verdict.NOT_REGISTERED,
     'no kind "PodStatusResult" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"'),
    ("", "v2", "ConfigMap", Verdict.NOT_REGISTERED,
     'no kind "ConfigMap" is registered for version "v2" in scheme "pkg/runtime/scheme.go:111"'),
    ("apps", "v1", "ConfigMap", Verdict.NOT_REGISTERED,
     'no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/runtime/scheme.go:111"'),
])
def test_judge_as_the_scheme(registry, group, version, kind, outcome, refusal) -> None:
    rt = _configmaps(registry)
    verdict = typemeta.judge(registry, rt, group, version, kind)
    assert verdict.outcome == outcome
    assert typemeta.refusal(rt, verdict, group, version, kind, "") == refusal


def test_the_endpoints_kind_in_another_version(registry) -> None:
    deployments = registry.get("apps", "v1", "deployments")
    assert typemeta.judge(registry, deployments, "apps", "v1beta1", "Deployment").outcome == Verdict.OTHER_VERSION
    assert typemeta.judge(registry, deployments, "extensions", "v1beta1", "Deployment").outcome == Verdict.OTHER_VERSION
    assert typemeta.refusal(deployments, typemeta.judge(registry, deployments, "apps", "v1", "StatefulSet"),
                            "apps", "v1", "StatefulSet", "") == (
        "converting (v1.StatefulSet) to (apps.Deployment): unknown conversion")


def test_body_defaults_fill_what_is_missing(registry) -> None:
    rt = registry.get("apps", "v1", "deployments")
    assert typemeta.body_defaults(rt, "", "", "") == ("apps", "v1", "Deployment")
    assert typemeta.body_defaults(rt, "apps", "", "X") == ("apps", "v1", "X")
    assert typemeta.body_defaults(rt, "other", "", "") == ("other", "", "Deployment")
