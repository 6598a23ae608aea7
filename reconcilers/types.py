"""Pydantic models of the agent-sandbox v1alpha1 API, limited to the fields the controllers read and write.

Field names and JSON keys follow kubernetes-sigs/agent-sandbox at 26288535 (2026-04-02):
``api/v1alpha1/sandbox_types.go`` and ``extensions/api/v1alpha1/sandbox{claim,template,warmpool}_types.go``.
The controllers work on plain dicts on their hot path; these models are for building objects at the edges
(scenarios, fixtures, tests) and for reading status in reports. ``to_obj()`` gives the wire dict with empty
(``omitempty``) fields left out, as Go's encoder would.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from fakekube.agentsandbox import keys


class _Model(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="allow")

    def to_obj(self) -> dict[str, Any]:
        return _prune(self.model_dump(by_alias=True, exclude_none=True))


def _prune(value: Any) -> Any:
    """Drop empty maps and lists recursively (Go's ``omitempty``), keeping zeros and ``False``."""
    if isinstance(value, dict):
        out = {k: _prune(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in ({}, [], None, "")}
    if isinstance(value, list):
        return [_prune(v) for v in value]
    return value


class ObjectMeta(_Model):
    name: str = ""
    namespace: str = ""
    generate_name: str = Field("", alias="generateName")
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
    uid: str = ""
    resource_version: str = Field("", alias="resourceVersion")
    generation: int | None = None
    creation_timestamp: str | None = Field(None, alias="creationTimestamp")
    deletion_timestamp: str | None = Field(None, alias="deletionTimestamp")
    owner_references: list[dict[str, Any]] = Field(default_factory=list, alias="ownerReferences")


class Condition(_Model):
    """metav1.Condition."""

    type: str
    status: Literal["True", "False", "Unknown"]
    reason: str
    message: str = ""
    observed_generation: int | None = Field(None, alias="observedGeneration")
    last_transition_time: str = Field("", alias="lastTransitionTime")


class PodMetadata(_Model):
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)


class PodTemplate(_Model):
    metadata: PodMetadata = Field(default_factory=PodMetadata)
    spec: dict[str, Any] = Field(default_factory=dict)  # a core/v1 PodSpec, kept as JSON


class VolumeClaimTemplate(_Model):
    metadata: dict[str, Any] = Field(default_factory=dict)
    spec: dict[str, Any] = Field(default_factory=dict)


# -- Sandbox (agents.x-k8s.io) ----------------------------------------------------------------------------


class SandboxSpec(_Model):
    pod_template: PodTemplate = Field(default_factory=PodTemplate, alias="podTemplate")
    volume_claim_templates: list[VolumeClaimTemplate] = Field(default_factory=list, alias="volumeClaimTemplates")
    shutdown_time: str | None = Field(None, alias="shutdownTime")
    shutdown_policy: Literal["Delete", "Retain"] | None = Field(None, alias="shutdownPolicy")
    replicas: int | None = None


class SandboxStatus(_Model):
    service_fqdn: str = Field("", alias="serviceFQDN")
    service: str = ""
    conditions: list[Condition] = Field(default_factory=list)
    replicas: int = 0
    selector: str = ""


class Sandbox(_Model):
    api_version: str = Field(keys.SANDBOX_API, alias="apiVersion")
    kind: str = "Sandbox"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: SandboxSpec = Field(default_factory=SandboxSpec)
    status: SandboxStatus = Field(default_factory=SandboxStatus)


# -- SandboxClaim, SandboxTemplate, SandboxWarmPool (extensions.agents.x-k8s.io) -----------------------------


class TemplateRef(_Model):
    name: str


class ClaimLifecycle(_Model):
    shutdown_time: str | None = Field(None, alias="shutdownTime")
    shutdown_policy: Literal["Delete", "DeleteForeground", "Retain"] | None = Field(None, alias="shutdownPolicy")


class SandboxClaimSpec(_Model):
    sandbox_template_ref: TemplateRef = Field(alias="sandboxTemplateRef")
    lifecycle: ClaimLifecycle | None = None


class ClaimSandboxStatus(_Model):
    name: str = ""


class SandboxClaimStatus(_Model):
    conditions: list[Condition] = Field(default_factory=list)
    sandbox: ClaimSandboxStatus = Field(default_factory=ClaimSandboxStatus)


class SandboxClaim(_Model):
    api_version: str = Field(keys.EXTENSIONS_API, alias="apiVersion")
    kind: str = "SandboxClaim"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: SandboxClaimSpec
    status: SandboxClaimStatus = Field(default_factory=SandboxClaimStatus)

    def ready(self) -> Condition | None:
        return next((c for c in self.status.conditions if c.type == keys.READY), None)


class NetworkPolicyRules(_Model):
    ingress: list[dict[str, Any]] = Field(default_factory=list)
    egress: list[dict[str, Any]] = Field(default_factory=list)


class SandboxTemplateSpec(_Model):
    pod_template: PodTemplate = Field(alias="podTemplate")
    network_policy: NetworkPolicyRules | None = Field(None, alias="networkPolicy")
    network_policy_management: Literal["Managed", "Unmanaged"] | None = Field(None, alias="networkPolicyManagement")


class SandboxTemplate(_Model):
    api_version: str = Field(keys.EXTENSIONS_API, alias="apiVersion")
    kind: str = "SandboxTemplate"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: SandboxTemplateSpec


class SandboxWarmPoolSpec(_Model):
    replicas: int = Field(ge=0)
    sandbox_template_ref: TemplateRef = Field(alias="sandboxTemplateRef")


class SandboxWarmPoolStatus(_Model):
    replicas: int = 0
    ready_replicas: int = Field(0, alias="readyReplicas")
    selector: str = ""


class SandboxWarmPool(_Model):
    api_version: str = Field(keys.EXTENSIONS_API, alias="apiVersion")
    kind: str = "SandboxWarmPool"
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: SandboxWarmPoolSpec
    status: SandboxWarmPoolStatus = Field(default_factory=SandboxWarmPoolStatus)
