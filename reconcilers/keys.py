"""Label, annotation, reason and resource names shared by the four controllers (API v1alpha1, ~2026-04-02).

Keys are the wire strings upstream uses; see docs/agent-sandbox.md for where each one is defined.
"""

from __future__ import annotations

# Resources, as fakekube.sim clients name them.
SANDBOXES = "sandboxes.agents.x-k8s.io"
CLAIMS = "sandboxclaims.extensions.agents.x-k8s.io"
TEMPLATES = "sandboxtemplates.extensions.agents.x-k8s.io"
WARMPOOLS = "sandboxwarmpools.extensions.agents.x-k8s.io"
PODS = "pods"
SERVICES = "services"
PVCS = "persistentvolumeclaims"
NETWORK_POLICIES = "networkpolicies.networking.k8s.io"

SANDBOX_API = "agents.x-k8s.io/v1alpha1"
EXTENSIONS_API = "extensions.agents.x-k8s.io/v1alpha1"

# Labels.
SANDBOX_NAME_HASH = "agents.x-k8s.io/sandbox-name-hash"  # pods/services/PVCs of a sandbox (selector)
WARM_POOL_SANDBOX = "agents.x-k8s.io/warm-pool-sandbox"  # = name_hash(pool): pool membership
TEMPLATE_REF_HASH = "agents.x-k8s.io/sandbox-template-ref-hash"  # = name_hash(template)
CLAIM_UID = "agents.x-k8s.io/claim-uid"  # SandboxIDLabel, on the pod template of a claimed sandbox

# Annotations.
TRACE_CONTEXT = "opentelemetry.io/trace-context"
CLAIM_FIRST_READY = "agents.x-k8s.io/claim-first-ready-at"  # v1.0.1, internal/metrics
POD_NAME = "agents.x-k8s.io/pod-name"
TEMPLATE_REF = "agents.x-k8s.io/sandbox-template-ref"

# Condition types and reasons.
READY = "Ready"
SANDBOX_EXPIRED = "SandboxExpired"
CLAIM_EXPIRED = "ClaimExpired"

# Field managers and actors (the audit log's "user").
SANDBOX_FIELD_OWNER = "sandbox-controller"
WARMPOOL_FIELD_OWNER = "warmpool-controller"
CLAIM_ACTOR = "sandboxclaim-controller"
SANDBOX_ACTOR = "sandbox-controller"
WARMPOOL_ACTOR = "sandboxwarmpool-controller"
TEMPLATE_ACTOR = "sandboxtemplate-controller"
