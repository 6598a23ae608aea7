"""The text of a failed patch's result: untouched structs in Go's field order (observed on kube-apiserver
v1.37.2: a merge patch of ``kind`` on a Service quotes its spec as Go's encoder writes core/v1 ServiceSpec)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fakekube.builtins import builtin_registry
from fakekube.patch.patched_text import patched_json

ROOT = Path(__file__).resolve().parents[2]


def test_untouched_structs_follow_go_declaration_order() -> None:
    schema = builtin_registry().resolve("services").patch_schema
    service = {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"namespace": "d", "name": "s", "uid": "u"},
        "spec": {"type": "ClusterIP", "sessionAffinity": "None", "clusterIPs": ["None"], "clusterIP": "None",
                 "ports": [{"targetPort": 80, "port": 80, "protocol": "TCP"}], "selector": {"b": "1", "a": "2"},
                 "internalTrafficPolicy": "Cluster", "ipFamilyPolicy": "SingleStack", "ipFamilies": ["IPv4"]},
        "status": {"loadBalancer": {}},
    }
    text = patched_json({**service, "kind": "Secret"}, {"kind": "Secret"}, "application/merge-patch+json", schema)
    assert text == json.dumps({
        "apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s", "namespace": "d", "uid": "u"},
        "spec": {"ports": [{"protocol": "TCP", "port": 80, "targetPort": 80}], "selector": {"a": "2", "b": "1"},
                 "clusterIP": "None", "clusterIPs": ["None"], "type": "ClusterIP", "sessionAffinity": "None",
                 "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster"},
        "status": {"loadBalancer": {}},
    }, separators=(",", ":"))


def test_the_field_order_table_is_current() -> None:
    if not Path("/root/go/pkg/mod/k8s.io/api@v0.37.2").is_dir():
        pytest.skip("the Go module cache is not on this machine")
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "generate_go_field_order.py"), "--check"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_structs_sharing_a_short_name_take_their_own_definitions_order() -> None:
    # observed on kube-apiserver v1.37.2: discovery/v1 EndpointPort is name, protocol, port (core/v1's is name,
    # port, protocol); Go's encoder escapes "<" in the stored bytes (k8s.io/api discovery/v1/types.go)
    schema = builtin_registry().resolve("endpointslices.discovery.k8s.io").patch_schema
    slice_ = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "s"},
              "addressType": "IPv4", "ports": [{"port": 80, "protocol": "TCP", "name": "a<b"}]}
    text = patched_json({**slice_, "kind": "Secret"}, {"kind": "Secret"}, "application/merge-patch+json", schema)
    assert text.endswith('"ports":[{"name":"a\\u003cb","protocol":"TCP","port":80}]}')
