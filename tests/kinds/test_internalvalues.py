"""Internal Go values as json.Marshal writes them in a bad value (fakekube.kinds.internalvalues)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from fakekube.kinds.internalvalues import internal_equal, internal_json
from fakekube.kinds.podspec import default_pod_template

# Observed on kube-apiserver v1.37.2 (job.batch/update/basic): a Job's immutable-template error quotes the
# internal core.PodTemplateSpec of this defaulted template (pkg/apis/batch/validation/validation.go
# validatePodTemplateUpdate; apimachinery pkg/util/validation/field/errors.go ErrorBody).
OBSERVED = (
    '{"labels":{"app":"demo"},"Spec":{"Volumes":null,"InitContainers":null,"Containers":[{"Name":"app'
    '","Image":"nginx:1.27","Command":null,"Args":null,"WorkingDir":"","Ports":null,"EnvFrom":null,"E'
    'nv":null,"Resources":{"Limits":null,"Requests":null,"Claims":null},"ResizePolicy":null,"RestartP'
    'olicy":null,"RestartPolicyRules":null,"VolumeMounts":null,"VolumeDevices":null,"LivenessProbe":n'
    'ull,"ReadinessProbe":null,"StartupProbe":null,"Lifecycle":null,"TerminationMessagePath":"/dev/te'
    'rmination-log","TerminationMessagePolicy":"File","ImagePullPolicy":"IfNotPresent","SecurityConte'
    'xt":null,"Stdin":false,"StdinOnce":false,"TTY":false}],"EphemeralContainers":null,"RestartPolicy'
    '":"Never","TerminationGracePeriodSeconds":30,"ActiveDeadlineSeconds":null,"DNSPolicy":"ClusterFi'
    'rst","NodeSelector":null,"ServiceAccountName":"","DeprecatedServiceAccount":"","AutomountService'
    'AccountToken":null,"NodeName":"","HostNetwork":false,"HostPID":false,"HostIPC":false,"ShareProce'
    'ssNamespace":null,"SecurityContext":{"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":nul'
    'l,"RunAsGroup":null,"RunAsNonRoot":null,"SupplementalGroups":null,"SupplementalGroupsPolicy":nul'
    'l,"FSGroup":null,"Sysctls":null,"FSGroupChangePolicy":null,"SeccompProfile":null,"AppArmorProfil'
    'e":null,"SELinuxChangePolicy":null},"ImagePullSecrets":null,"Hostname":"","Subdomain":"","Affini'
    'ty":null,"SchedulerName":"default-scheduler","Tolerations":null,"HostAliases":null,"PriorityClas'
    'sName":"","Priority":null,"DNSConfig":null,"ReadinessGates":null,"RuntimeClassName":null,"Enable'
    'ServiceLinks":null,"PreemptionPolicy":null,"Overhead":null,"TopologySpreadConstraints":null,"Set'
    'HostnameAsFQDN":null,"OS":null,"HostUsers":null,"SchedulingGates":null,"ResourceClaims":null,"Re'
    'sources":null,"HostnameOverride":null,"SchedulingGroup":null,"EvictionResponders":null}}')


def _template() -> dict:
    template = {"metadata": {"labels": {"app": "demo"}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "nginx:1.27"}]}}
    default_pod_template(template)
    return template


def test_a_pod_template_is_written_as_the_internal_type() -> None:
    assert internal_json("PodTemplateSpec", _template()) == OBSERVED


def test_quantities_and_int_or_strings_keep_their_marshaled_forms() -> None:
    template = _template()
    container = template["spec"]["containers"][0]
    container["resources"] = {"limits": {"memory": "1024Mi", "cpu": "0.5"}}
    container["livenessProbe"] = {"httpGet": {"port": "http", "path": "/"}}
    text = internal_json("PodTemplateSpec", template)
    assert '"Resources":{"Limits":{"cpu":"500m","memory":"1Gi"},"Requests":null,"Claims":null}' in text
    # ProbeHandler is embedded untagged: its fields are promoted into the Probe
    assert '"LivenessProbe":{"Exec":null,"HTTPGet":{"Path":"/","Port":"http","Host":"","Scheme":""' in text


def test_semantic_equality_equates_unset_empty_and_zero() -> None:
    a = {"spec": {"containers": [{"name": "app"}], "volumes": []}}
    b = {"metadata": {}, "spec": {"containers": [{"name": "app", "stdin": False, "command": None}]}}
    assert internal_equal("PodTemplateSpec", a, b)
    assert not internal_equal("PodTemplateSpec", a, {"spec": {"containers": [{"name": "other"}]}})


def test_the_internal_type_shapes_are_current() -> None:
    root = Path(__file__).resolve().parents[2]
    if shutil.which("go") is None or not Path("/root/go/pkg/mod/k8s.io/kubernetes@v1.37.2").is_dir():
        pytest.skip("no Go toolchain or module cache on this machine")
    result = subprocess.run([str(root / "scripts" / "generate-internal-types"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
