"""Workload validation, with cases restated from kubernetes ``pkg/apis/apps/validation/validation_test.go``
(TestValidateDeployment, TestValidateDeploymentUpdate, TestValidateReplicaSet, TestValidateStatefulSet,
TestValidateStatefulSetUpdate, TestValidateDaemonSet, TestValidateDaemonSetUpdate), ``pkg/apis/batch/validation/
validation_test.go`` (TestValidateJob, TestValidateJobUpdate, TestValidateCronJob) and ``pkg/apis/core/
validation/validation_test.go`` (TestValidateReplicationController)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store
from tests.kinds.conftest import deployment, pod_template


def _causes(err: errors.ApiError) -> list[str]:
    return [f"{c['field']}: {c['message']}" for c in err.status["details"]["causes"]]


def _reject(kube: Store, resource: str, body: dict[str, Any]) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.create(resource, body, "default")
    return _causes(caught.value)


def test_template_labels_must_match_the_selector(kube: Store) -> None:
    body = deployment(template=pod_template({"app": "other"}))
    with pytest.raises(errors.Invalid) as caught:
        kube.create("deployments", body, "default")
    assert caught.value.message == ('Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: '
                                    '{"app":"other"}: `selector` does not match template `labels`')


def test_a_missing_selector_also_fails_to_match(kube: Store) -> None:
    body = deployment()
    del body["spec"]["selector"]
    assert _reject(kube, "deployments", body) == [
        "spec.selector: Required value",
        'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match '
        "template `labels`"]


def test_an_empty_selector_is_invalid(kube: Store) -> None:
    assert _reject(kube, "deployments", deployment(selector={})) == [
        "spec.selector: Invalid value: {}: empty selector is invalid for deployment"]


@pytest.mark.parametrize(("spec", "expected"), [
    ({"replicas": -1}, ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]),
    ({"template": pod_template(restartPolicy="OnFailure")},
     ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"']),
    ({"strategy": {"type": "Recreate", "rollingUpdate": {}}},
     ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"]),
    ({"strategy": {"rollingUpdate": {"maxUnavailable": 0, "maxSurge": 0}}},
     ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: '
      "may not be 0 when `maxSurge` is 0"]),
    ({"strategy": {"rollingUpdate": {"maxUnavailable": "110%"}}},
     ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%']),
    ({"progressDeadlineSeconds": 10, "minReadySeconds": 10},
     ["spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"]),
    ({"revisionHistoryLimit": -2}, ["spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal "
                                    "to 0"]),
])
def test_deployment_spec_errors(kube: Store, spec: dict[str, Any], expected: list[str]) -> None:
    assert _reject(kube, "deployments", deployment(**spec)) == expected


def test_the_template_is_validated_as_a_pod_spec(kube: Store) -> None:
    body = deployment(template=pod_template(containers=[{"image": "nginx"}]))
    assert _reject(kube, "deployments", body) == ["spec.template.spec.containers[0].name: Required value"]


def test_selectors_are_immutable(kube: Store) -> None:
    live = kube.create("deployments", deployment(), "default")
    live["spec"]["selector"] = {"matchLabels": {"app": "web", "tier": "fe"}}
    live["spec"]["template"]["metadata"]["labels"]["tier"] = "fe"
    with pytest.raises(errors.Invalid) as caught:
        kube.update("deployments", live, "default")
    assert _causes(caught.value) == [
        'spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"fe"}}: field is immutable']


def test_label_selector_expressions(kube: Store) -> None:
    selector = {"matchExpressions": [{"key": "app", "operator": "In"}, {"key": "x", "operator": "Exists",
                                                                         "values": ["y"]}]}
    causes = _reject(kube, "deployments", deployment(selector=selector))
    assert causes[:2] == [
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or "
        "'NotIn'",
        "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or "
        "'DoesNotExist'"]


def test_replicaset_and_daemonset(kube: Store) -> None:
    rs = {"metadata": {"name": "rs"}, "spec": {"selector": {"matchLabels": {"app": "web"}},
                                               "template": pod_template(activeDeadlineSeconds=5)}}
    assert _reject(kube, "replicasets", rs) == [
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"]
    ds = {"metadata": {"name": "ds"}, "spec": {"selector": {"matchLabels": {"app": "web"}},
                                               "template": pod_template(),
                                               "updateStrategy": {"rollingUpdate": {"maxUnavailable": 1,
                                                                                    "maxSurge": 1}}}}
    assert _reject(kube, "daemonsets", ds) == [
        'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: '
        "may not be set when maxUnavailable is non-zero"]


def test_a_daemonset_without_selector_only_fails_to_match(kube: Store) -> None:
    # Observed on kube-apiserver v1.37.2: ValidateDaemonSetSpec has no "Required" for a nil selector (it matches
    # no labels), and an empty one is refused after the labels check (pkg/apis/apps/validation/validation.go).
    ds = {"metadata": {"name": "ds"}, "spec": {"template": pod_template()}}
    assert _reject(kube, "daemonsets", ds) == [
        'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']
    ds["spec"]["selector"] = {}
    ds["spec"]["template"] = pod_template(activeDeadlineSeconds=5)
    assert _reject(kube, "daemonsets", ds) == [
        "spec.selector: Invalid value: {}: empty selector is invalid for daemonset",
        "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported"]


def test_statefulset_and_pdb_names(kube: Store) -> None:
    # Observed on kube-apiserver v1.37.2: a StatefulSet's name is a DNS label (ValidateStatefulSetName); a
    # PodDisruptionBudget's is only a path segment (its validation skips metadata; apiserver rest.ValidateCreate).
    assert _reject(kube, "statefulsets", {**_statefulset(), "metadata": {"name": "Bad_Name"}}) == [
        'metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric '
        "characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]
    pdb = {"metadata": {"name": "Not_A_Subdomain"}, "spec": {"minAvailable": 1}}
    assert kube.create("poddisruptionbudgets", pdb, "default")["metadata"]["name"] == "Not_A_Subdomain"
    assert _reject(kube, "poddisruptionbudgets", {**pdb, "metadata": {"name": "a%b"}}) == [
        "metadata.name: Invalid value: \"a%b\": may not contain '%'"]
    # ... and only once the spec passed (observed: workloads/pdb-metadata-after-spec)
    bad = {"metadata": {"name": "p2", "labels": {"bad key!": "x"}}, "spec": {"minAvailable": 1, "maxUnavailable": 1}}
    assert _reject(kube, "poddisruptionbudgets", bad) == [
        'spec: Invalid value: {"MinAvailable":1,"Selector":null,"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: '
        "minAvailable and maxUnavailable cannot be both set"]
    del bad["spec"]["maxUnavailable"]
    assert [c.split(":")[0] for c in _reject(kube, "poddisruptionbudgets", bad)] == ["metadata.labels"]


def test_a_bad_strategy_type_quotes_the_internal_strategy(kube: Store) -> None:
    # Observed on kube-apiserver v1.37.2: NotSupported/Invalid on the whole internal strategy struct, printed by
    # json.Marshal with Go field names (pkg/apis/apps/validation/validation.go ValidateDeploymentStrategy,
    # ValidateDaemonSetUpdateStrategy, ValidateStatefulSetSpec; apimachinery field/errors.go).
    assert _reject(kube, "deployments", deployment(strategy={"type": "Sideways"})) == [
        'spec.strategy: Unsupported value: {"Type":"Sideways","RollingUpdate":null}: supported values: '
        '"Recreate", "RollingUpdate"']
    body = deployment(strategy={"type": "Sideways", "rollingUpdate": {"maxSurge": "10%"}})
    assert _reject(kube, "deployments", body) == [
        'spec.strategy: Unsupported value: {"Type":"Sideways","RollingUpdate":{"MaxUnavailable":0,"MaxSurge":"10%"}}: '
        'supported values: "Recreate", "RollingUpdate"']
    ds = {"metadata": {"name": "ds"}, "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": pod_template(),
                                               "updateStrategy": {"type": "Sometimes"}}}
    assert _reject(kube, "daemonsets", ds) == [
        'spec.updateStrategy: Unsupported value: {"Type":"Sometimes","RollingUpdate":null}: supported values: '
        '"RollingUpdate", "OnDelete"']
    sts = _statefulset(updateStrategy={"type": "Sometimes", "rollingUpdate": {"partition": 2}})
    assert _reject(kube, "statefulsets", sts) == [
        'spec.updateStrategy: Invalid value: {"Type":"Sometimes","RollingUpdate":{"Partition":2,"MaxUnavailable":null}}: '
        "must be 'RollingUpdate' or 'OnDelete'"]


def _statefulset(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "db"}, "spec": {"selector": {"matchLabels": {"app": "web"}},
                                                 "template": pod_template(), "serviceName": "db", **spec}}


def test_statefulset_errors_and_updates(kube: Store) -> None:
    assert _reject(kube, "statefulsets", _statefulset(podManagementPolicy="Random")) == [
        "spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"]
    live = kube.create("statefulsets", _statefulset(), "default")
    live["spec"]["replicas"] = 3
    live = kube.update("statefulsets", live, "default")
    live["spec"]["serviceName"] = "other"
    with pytest.raises(errors.Invalid) as caught:
        kube.update("statefulsets", live, "default")
    assert _causes(caught.value) == [
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', "
        "'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are "
        "forbidden"]


def test_replication_controller(kube: Store) -> None:
    rc = {"metadata": {"name": "rc"}, "spec": {"selector": {"app": "other"}, "template": pod_template()}}
    assert _reject(kube, "replicationcontrollers", rc) == [
        'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match '
        "template `labels`"]


# ----------------------------------------------------------------------------------------------- batch

def _job(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "pi"}, "spec": {"template": pod_template(restartPolicy="Never"), **spec}}


def test_a_job_that_restarts_always_is_rejected(kube: Store) -> None:
    # Observed on kube-apiserver v1.37.2: validateJobSpec treats Always like unset, as defaulting writes it for
    # an unset policy (kubernetes pkg/apis/batch/validation/validation.go).
    body = _job(template=pod_template())  # restartPolicy defaults to Always
    assert _reject(kube, "jobs", body) == ['spec.template.spec.restartPolicy: Required value: valid values: '
                                           '"OnFailure", "Never"']
    assert _reject(kube, "jobs", _job(template=pod_template(restartPolicy="Sometimes"))) == [
        'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", '
        '"Never"',  # the pod spec's own check
        'spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"']


def test_a_jobs_template_errors_come_before_its_selectors(kube: Store) -> None:
    # ValidateJobSpec: validateJobSpec (the pod template) first, then the selector and the labels it must match.
    body = _job(manualSelector=True, template=pod_template(restartPolicy="Never", containers=[]))
    assert _reject(kube, "jobs", body) == [
        "spec.template.spec.containers: Required value",
        "spec.selector: Required value",
        'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']


def test_a_cronjobs_missing_schedule_is_reported_last(kube: Store) -> None:
    # Observed on kube-apiserver v1.37.2: spec.schedule's +k8s:required is beta declarative validation, whose
    # errors replace the handwritten ones they cover and follow all of them (apiserver
    # pkg/registry/rest/validate.go ValidateDeclarativelyWithMigrationChecks).
    body = {"metadata": {"name": "c"}, "spec": {"jobTemplate": {"spec": {"template": {"spec": {}}}}}}
    assert _reject(kube, "cronjobs", body) == [
        "spec.jobTemplate.spec.template.spec.containers: Required value",
        'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
        "spec.schedule: Required value"]


def test_job_spec_errors(kube: Store) -> None:
    assert _reject(kube, "jobs", _job(parallelism=-1, backoffLimit=-1)) == [
        "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
        "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0"]
    assert _reject(kube, "jobs", _job(manualSelector=True)) == [
        "spec.selector: Required value",
        'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match '
        "template `labels`"]


def test_a_jobs_template_and_selector_are_immutable(kube: Store) -> None:
    live = kube.create("jobs", _job(), "default")
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    with pytest.raises(errors.Invalid) as caught:
        kube.update("jobs", live, "default")
    [cause] = _causes(caught.value)
    # the internal core.PodTemplateSpec, as json.Marshal writes it (tests/kinds/test_internalvalues.py)
    assert cause.startswith('spec.template: Invalid value: {"labels":{"app":"web","batch.kubernetes.io/controller-uid"')
    assert '"Containers":[{"Name":"app","Image":"nginx:1.28","Command":null,' in cause
    assert cause.endswith('"SchedulingGroup":null,"EvictionResponders":null}}: field is immutable')


def test_a_suspended_job_may_change_only_its_containers_resources(kube: Store) -> None:
    # MutablePodResourcesForSuspendedJobs (beta, on in v1.37): a suspended Job that never started compares only
    # its pod spec, with the containers' resources taken from the update (pkg/apis/batch/validation/
    # validation.go validatePodResourceUpdatesOnly; pkg/registry/batch/job/strategy.go).
    live = kube.create("jobs", _job(suspend=True), "default")
    live["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    live["spec"]["template"]["metadata"]["annotations"] = {"note": "x"}
    live = kube.update("jobs", live, "default")
    assert live["spec"]["template"]["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "1"}}
    live["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    with pytest.raises(errors.Invalid) as caught:
        kube.update("jobs", live, "default")
    [cause] = _causes(caught.value)
    assert cause.startswith('spec.template.spec: Invalid value: {"Volumes":null,"InitContainers":null,"Containers":[')
    assert cause.endswith(": field is immutable")


def test_a_suspended_job_may_move_its_pods(kube: Store) -> None:
    live = kube.create("jobs", _job(suspend=True), "default")
    live["spec"]["template"]["spec"]["nodeSelector"] = {"zone": "b"}
    assert kube.update("jobs", live, "default")["spec"]["template"]["spec"]["nodeSelector"] == {"zone": "b"}


@pytest.mark.parametrize(("schedule", "expected"), [
    ("", "spec.schedule: Required value"),
    ("* * *", 'spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]'),
    ("TZ=UTC 0 * * * *", 'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, '
                         "use timeZone field instead"),
])
def test_cronjob_schedule(kube: Store, schedule: str, expected: str) -> None:
    body = {"metadata": {"name": "c"}, "spec": {"schedule": schedule, "jobTemplate": {"spec": {
        "template": pod_template(restartPolicy="OnFailure")}}}}
    assert _reject(kube, "cronjobs", body) == [expected]


@pytest.mark.parametrize(("zone", "expected"), [
    ("", ['spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string']),
    ("local", ['spec.timeZone: Invalid value: "local": timeZone must be an explicit time zone as defined in '
               "https://www.iana.org/time-zones", 'spec.timeZone: Invalid value: "local": unknown time zone local']),
    ("a/../b", ['spec.timeZone: Invalid value: "a/../b": unknown time zone a/../b']),
    ("x<y", ['spec.timeZone: Invalid value: "x\\u003cy": unknown time zone x<y']),  # json.Marshal of the *string
    ("Europe/Berlin", []),
])
def test_cronjob_time_zones(kube: Store, zone: str, expected: list[str]) -> None:
    # Observed on kube-apiserver v1.37.2 (workloads/cronjob-time-zones): pkg/apis/batch/validation validateTimeZone.
    body = {"metadata": {"name": "c"}, "spec": {"schedule": "@hourly", "timeZone": zone, "jobTemplate": {"spec": {
        "template": pod_template(restartPolicy="OnFailure")}}}}
    if expected:
        assert _reject(kube, "cronjobs", body) == expected
    else:
        kube.create("cronjobs", body, "default")


def test_cronjob_names_are_at_most_52_characters(kube: Store) -> None:
    name = "c" * 53
    body = {"metadata": {"name": name}, "spec": {"schedule": "@hourly", "jobTemplate": {"spec": {
        "template": pod_template(restartPolicy="OnFailure")}}}}
    assert _reject(kube, "cronjobs", body) == [
        f'metadata.name: Invalid value: "{name}": must be no more than 52 characters']
