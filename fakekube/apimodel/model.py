"""What fakekube knows about one built-in kind of one Kubernetes version beyond its names: its schemas.

A ``BuiltinModel`` is cheap to make (two strings); every schema it hands out is built on first use from the
version's OpenAPI definitions and cached for the process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from fakekube.apimodel.decoder import Decoder, decoder
from fakekube.apimodel.patch_schemas import patch_schema
from fakekube.apimodel.versions import KubernetesVersion
from fakekube.patch.schema import PatchSchema


@dataclass(frozen=True)
class BuiltinModel:
    kubernetes_version: KubernetesVersion
    definition: str  # io.k8s.api.apps.v1.Deployment
    group: str
    version: str
    kind: str

    def patch_schema(self) -> PatchSchema:
        return patch_schema(self.kubernetes_version, self.definition)

    @cached_property
    def decoder(self) -> Decoder:
        """The kind's typed decoder (fakekube.apimodel.decoder), compiled on first use."""
        return decoder(self.kubernetes_version, self.definition)
