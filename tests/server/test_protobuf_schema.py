"""The committed protobuf table (fakekube/server/protobuf/schema.json) against the upstream sources: every
message of the generated.proto files with the same field numbers, types and cardinalities, and the kinds the
discovery documents name. The table is made from k8s.io/api and apimachinery v0.37.2 (the Go module cache):
the GA protos /work/shared lists, read at that tag, plus the generator's EXTRA_GROUP_VERSIONS (autoscaling/v2).
Skipped when ../shared or the module cache is absent.

The JSON facts of the table (omitempty, pointers, inline structs) come from the Go struct tags of
kubernetes/api and kubernetes/apimachinery at the protos' tag, which /work/shared does not hold; the kubectl
oracle (test_protobuf_kubectl.py) and the round trips check them in use.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "reference"
PROTOS = SHARED / "protobuf"
DISCOVERY = SHARED / "discovery"
TABLE = json.loads((ROOT / "fakekube/server/protobuf/schema.json").read_text())
GO_API = Path("/root/go/pkg/mod/k8s.io/api@v0.37.2")
GO_APIMACHINERY = Path("/root/go/pkg/mod/k8s.io/apimachinery@v0.37.2")
pytestmark = pytest.mark.skipif(not PROTOS.is_dir() or not DISCOVERY.is_dir() or not GO_API.is_dir()
                                or not GO_APIMACHINERY.is_dir(), reason="../shared/reference or Go sources absent")


@pytest.fixture(scope="module")
def protos(tmp_path_factory: Any) -> Path:
    return _generator().module_proto_root(PROTOS, GO_API, GO_APIMACHINERY, tmp_path_factory.mktemp("protos"))


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate_protobuf_schema",
                                                  ROOT / "scripts" / "generate_protobuf_schema.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_message_and_field_matches_the_protos(protos: Path):
    gen = _generator()
    protos = gen.read_protos(protos)
    known = set(protos)
    assert set(TABLE["messages"]) == known
    for name, info in protos.items():
        expected = [(n, gen.resolve(t, info["package"], known), card) for n, _, t, card in sorted(info["fields"])]
        actual = [(n, t, card) for n, _, t, card, _ in TABLE["messages"][name]]
        assert actual == expected, name


def test_json_names_are_the_proto_names_or_the_go_tags(protos: Path):
    gen = _generator()
    protos = gen.read_protos(protos)
    renamed = {(name, proto_name, row[1]) for name, info in protos.items()
               for (_, proto_name, _, _), row in zip(sorted(info["fields"]), TABLE["messages"][name], strict=True)
               if proto_name != row[1]}
    # go-to-protobuf names a few fields after the Go field; JSON uses the json tag
    assert ("networking.v1.IngressClassParametersReference", "aPIGroup", "apiGroup") in renamed
    assert ("admissionregistration.v1.ValidatingWebhookConfiguration", "Webhooks", "webhooks") in renamed
    assert len(renamed) < 12


def test_kinds_are_the_messages_named_like_a_served_kind():
    gen = _generator()
    served = gen.read_kinds(DISCOVERY)
    for api_version, kinds in TABLE["kinds"].items():
        for kind, message in kinds.items():
            base = kind[:-4] if kind.endswith("List") and kind not in served.get(api_version, set()) else kind
            assert base in served[api_version], (api_version, kind)
            assert message.rpartition(".")[2] == kind
    assert TABLE["kinds"]["v1"]["Pod"] == "core.v1.Pod"
    assert TABLE["kinds"]["autoscaling/v1"]["Scale"] == "autoscaling.v1.Scale"
    assert TABLE["kinds"]["rbac.authorization.k8s.io/v1"]["ClusterRoleList"] == "rbac.v1.ClusterRoleList"


def test_the_table_is_what_the_generator_writes_from_these_protos(protos: Path):
    """Regenerating from the Go sources at v0.37.2 reproduces the committed bytes."""
    table = _generator().build(protos, DISCOVERY, GO_API, GO_APIMACHINERY)
    table["sources"] = TABLE["sources"]
    assert table == TABLE
