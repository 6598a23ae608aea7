"""Bodies the per-kind tests share. The ``kube`` fixture (fakekube's pytest plugin) serves every GA built-in
kind from the registry, each with its ``fakekube.kinds.strategy_for`` strategy."""

from __future__ import annotations

from typing import Any


def pod_template(labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"labels": labels if labels is not None else {"app": "web"}},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec}}


def deployment(name: str = "web", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": pod_template(), **spec}}


def pod(name: str = "p", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec}}
