"""The Pod-sized object every single-object benchmark uses (about 2 KB of JSON)."""

from __future__ import annotations

from typing import Any


def pod(name: str = "bench", labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "labels": labels or {"app": "bench", "tier": "backend", "version": "v1"},
            "annotations": {"example.com/owner": "team-a", "example.com/trace": "abc123"},
        },
        "spec": {
            "containers": [
                {
                    "name": f"c{i}",
                    "image": "registry.example.com/app:1.2.3",
                    "args": ["--port=8080", "--verbose"],
                    "env": [{"name": f"VAR_{j}", "value": f"value-{j}"} for j in range(6)],
                    "ports": [{"containerPort": 8080 + i, "protocol": "TCP"}],
                    "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                                  "limits": {"cpu": "500m", "memory": "256Mi"}},
                    "volumeMounts": [{"name": "data", "mountPath": "/data"}],
                }
                for i in range(2)
            ],
            "volumes": [{"name": "data", "emptyDir": {}}],
            "restartPolicy": "Always",
        },
    }
