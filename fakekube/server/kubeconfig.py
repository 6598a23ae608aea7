"""kubeconfig files for clients of the fake server.

Written as JSON (YAML is a superset; kubectl, kubernetes, kr8s, lightkube and kopf all read it), so no
YAML emitter is involved. Over plain http kubectl never sends the token (client-go reads credentials only for
TLS transports), but the Python clients do; a TLS server's CA goes in ``certificate-authority-data``, and
without a token its admin client certificate authenticates the user (as kind's kubeconfig does).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any


def kubeconfig_dict(url: str, *, token: str | None = None, namespace: str = "default",
                    name: str = "fakekube", ca_pem: bytes | None = None,
                    client_certificate: tuple[bytes, bytes] | None = None) -> dict[str, Any]:
    """``client_certificate`` (PEM certificate, PEM key) authenticates the user by TLS when there is no token."""
    user: dict[str, Any] = {"token": token} if token else {}
    if client_certificate and not token:
        user["client-certificate-data"] = base64.b64encode(client_certificate[0]).decode()
        user["client-key-data"] = base64.b64encode(client_certificate[1]).decode()
    cluster: dict[str, Any] = {"server": url}
    if ca_pem:
        cluster["certificate-authority-data"] = base64.b64encode(ca_pem).decode()
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": name,
        "clusters": [{"name": name, "cluster": cluster}],
        "users": [{"name": name, "user": user}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name, "namespace": namespace}}],
        "preferences": {},
    }


def write_kubeconfig(path: str | os.PathLike[str], url: str, *, token: str | None = None,
                     namespace: str = "default", ca_pem: bytes | None = None,
                     client_certificate: tuple[bytes, bytes] | None = None) -> Path:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    config = kubeconfig_dict(url, token=token, namespace=namespace, ca_pem=ca_pem,
                             client_certificate=client_certificate)
    target.write_text(json.dumps(config, indent=2) + "\n")
    if token or client_certificate:
        target.chmod(0o600)  # it holds a credential
    return target
