"""Job spec validation (fakekube.kinds.jobvalidation), observed on kube-apiserver v1.37.2
(workloads/job-spec-rules; kubernetes pkg/apis/batch/validation/validation.go)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store


def _job(name: str = "j", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": {
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "nginx:1.27"}]}},
        **spec}}


def _causes(kube: Store, body: dict[str, Any]) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("jobs", body, "default")
    return [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]]


@pytest.mark.parametrize(("spec", "expected"), [
    ({"backoffLimitPerIndex": 1, "maxFailedIndexes": 1},
     ["spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
      "spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode"]),
    ({"completionMode": "Indexed", "maxFailedIndexes": 1},
     ["spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified"]),
    ({"managedBy": "not a path"},
     ['spec.managedBy: Invalid value: "not a path": must be a domain-prefixed path (such as "acme.io/foo")']),
    ({"successPolicy": {"rules": [{"succeededCount": 1}]}},
     ['spec.successPolicy: Invalid value: {"Rules":[{"SucceededIndexes":null,"SucceededCount":1}]}: '
      "requires indexed completion mode"]),
    ({"completionMode": "Indexed", "parallelism": 200000, "completions": 3},
     ["spec.parallelism: Invalid value: 200000: must be less than or equal to 100000 when completion mode is "
      "Indexed"]),
    ({"podReplacementPolicy": "Sometimes"},
     ['spec.podReplacementPolicy: Unsupported value: "Sometimes": supported values: "Failed", '
      '"TerminatingOrFailed"']),
    ({"podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3, 0, 3]}}]}},
     ["spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In operator",
      "spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3",
      "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [3,0,3]: must be ordered"]),
    ({"podFailurePolicy": {"rules": [{"action": "FailJob"}]}},
     ["spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is "
      "required"]),
])
def test_job_spec_rules(kube: Store, spec: dict[str, Any], expected: list[str]) -> None:
    assert _causes(kube, _job(**spec)) == expected


def test_a_generated_selector_selects_only_the_jobs_labels(kube: Store) -> None:
    body = _job("j10", selector={"matchLabels": {"app": "a"}})
    body["spec"]["template"]["metadata"] = {"labels": {"app": "a"}}
    [cause] = _causes(kube, body)
    assert cause.startswith('spec.selector: Invalid value: {"matchLabels":{"app":"a","batch.kubernetes.io/'
                            'controller-uid":"')
    assert cause.endswith('"}}: `selector` not auto-generated')


def test_an_indexed_jobs_name_must_leave_room_for_the_index(kube: Store) -> None:
    name = "j" * 62
    assert _causes(kube, _job(name, completionMode="Indexed", completions=100, parallelism=1)) == [
        f'metadata.name: Invalid value: "{name}": will not able to create pod with invalid DNS label: {name}-99']


def test_an_indexed_jobs_completions_change_with_its_parallelism(kube: Store) -> None:
    live = kube.create("jobs", _job(completionMode="Indexed", completions=2, parallelism=2), "default")
    live["spec"]["completions"] = 3
    with pytest.raises(errors.Invalid) as caught:
        kube.update("jobs", live, "default")
    assert "spec.completions: Invalid value: 3: can only be modified in tandem with spec.parallelism" in str(
        caught.value.message)
    live["spec"]["parallelism"] = 3
    assert kube.update("jobs", live, "default")["spec"]["completions"] == 3
