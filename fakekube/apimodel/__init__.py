"""The API model of built-in kinds, from data: which resources a Kubernetes version serves (the generated
``api_resources.json``), their OpenAPI definitions (kubernetes-validate), and what is derived from those —
patch metadata, typed decoding, OpenAPI documents. See docs/builtin-api.md.
"""

from fakekube.apimodel.versions import (
    DEFAULT_KUBERNETES_VERSION,
    KubernetesVersion,
    kubernetes_version,
    supported_versions,
)

__all__ = ["DEFAULT_KUBERNETES_VERSION", "KubernetesVersion", "kubernetes_version", "supported_versions"]
