"""validate_pod_spec remembers the specs that passed, by their JSON text with admission's token volume names
masked (fakekube/kinds/podvalidation.py ``_spec_key``): every answer is the one a fresh validation gives, for
specs that differ from a remembered one by a single field and for token-shaped names used in every role."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakekube import errors
from fakekube.kinds import podvalidation
from fakekube.kinds.podvalidation import validate_pod_spec
from fakekube.store import Store
from tests.kinds.conftest import pod

TOKEN_A, TOKEN_B, TOKEN_C = "kube-api-access-bcdfg", "kube-api-access-22222", "kube-api-access-zx9w8"


def _spec(volume: str, *, mounts: tuple[str, ...] | None = None, **extra: Any) -> dict[str, Any]:
    names = mounts if mounts is not None else (volume,)
    return {"volumes": [{"name": "data", "emptyDir": {}}, {"name": volume, "projected": {"sources": []}}],
            "containers": [{"name": "app", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent",
                            "terminationMessagePolicy": "File",
                            "volumeMounts": [{"name": n, "mountPath": f"/m/{i}"} for i, n in enumerate(names)]}],
            "restartPolicy": "Always", "dnsPolicy": "ClusterFirst", **extra}


SPECS: list[dict[str, Any]] = [
    _spec(TOKEN_A),
    _spec(TOKEN_B),  # the same spec with another token name: remembered
    _spec(TOKEN_B, mounts=(TOKEN_B, TOKEN_A)),  # a mount of a token-shaped name no volume has
    _spec(TOKEN_A, mounts=(TOKEN_A, "data")),
    _spec(TOKEN_C, mounts=(TOKEN_C, "data")),
    {**_spec(TOKEN_A), "volumes": [{"name": TOKEN_A, "emptyDir": {}}, {"name": TOKEN_B, "emptyDir": {}}]},
    {**_spec(TOKEN_A), "volumes": [{"name": TOKEN_A, "emptyDir": {}}, {"name": TOKEN_A, "emptyDir": {}}]},
    {**_spec(TOKEN_A), "volumes": [{"name": TOKEN_B, "emptyDir": {}}, {"name": TOKEN_B, "emptyDir": {}}]},
    _spec(TOKEN_C, mounts=(TOKEN_B,)),
    _spec(TOKEN_A, nodeSelector={TOKEN_A: "x"}),
    _spec(TOKEN_A, nodeSelector={TOKEN_A + "/": "x"}),
    _spec(TOKEN_B, nodeSelector={TOKEN_B: "x"}),
    _spec(TOKEN_B, nodeSelector={TOKEN_A: "x"}),
    _spec(TOKEN_A, hostname=TOKEN_A),
    _spec(TOKEN_A, hostname=TOKEN_A + "."),
    _spec(TOKEN_A, restartPolicy="Sometimes"),
    _spec("kube-api-access-bcdf"),  # not token-shaped (four characters): not masked
    _spec("kube-api-access-BCDFG"),  # not token-shaped, and not a DNS label
    _spec("kube-api-access-bcdfga"),
    _spec(TOKEN_A, containers=[{"name": "app", "image": " nginx"}]),
    _spec(TOKEN_A, containers=[]),
]


def _fresh(spec: dict[str, Any], is_pod: bool) -> list[Any]:
    podvalidation._VALID_SPECS.clear()
    return validate_pod_spec(copy.deepcopy(spec), "spec", is_pod=is_pod)


@pytest.mark.parametrize("is_pod", [True, False])
def test_every_answer_is_a_fresh_validations(is_pod: bool) -> None:
    expected = [_fresh(spec, is_pod) for spec in SPECS]
    assert expected[0] == [] and expected[1] == []
    assert sum(1 for errs in expected if errs) >= 10  # the table holds the cases that must fail
    podvalidation._VALID_SPECS.clear()
    for _ in range(2):  # in order, then again with every valid spec remembered
        assert [validate_pod_spec(copy.deepcopy(spec), "spec", is_pod=is_pod) for spec in SPECS] == expected
    assert podvalidation._VALID_SPECS


def test_a_pod_and_a_template_are_remembered_apart() -> None:
    spec = _spec(TOKEN_A, containers=[{"name": "app", "image": " nginx", "imagePullPolicy": "Always",
                                       "terminationMessagePolicy": "File"}])
    podvalidation._VALID_SPECS.clear()
    assert validate_pod_spec(spec, "template.spec") == []  # the whitespace rule is a pod's only
    assert validate_pod_spec(spec, "spec", is_pod=True) != []


def test_pods_of_one_template_after_the_first_are_checked_as_the_first(kube: Store) -> None:
    kube.create("pods", pod("first"), "default")
    second = kube.create("pods", pod("second"), "default")
    first_volumes = kube.get("pods", "first", "default")["spec"]["volumes"]
    assert first_volumes[0]["name"] != second["spec"]["volumes"][0]["name"]  # each its own token volume
    # The same spec with a mount of the first pod's token volume, which the second pod does not have.
    body = pod("third", containers=[{"name": "app", "image": "nginx:1.27",
                                     "volumeMounts": [{"name": first_volumes[0]["name"], "mountPath": "/t"}]}])
    with pytest.raises(errors.Invalid, match=r"spec.containers\[0\].volumeMounts\[0\].name: Not found"):
        kube.create("pods", body, "default")
