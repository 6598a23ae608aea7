"""Kubernetes versions fakekube can emulate, and the default one.

A version is a minor release (``1.30``): the API surface (which groups, versions and kinds exist, and their
schemas) changes between minors, never within one. ``"1.30"``, ``"v1.30"`` and ``"v1.30.4"`` all name 1.30.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from fakekube.apimodel.table import load_table

# The pinned official client, kubernetes==37.0.2, is generated from the Kubernetes 1.37 API
# ("release-1.37" in its configuration's debug report): fakekube emulates that release unless told otherwise.
DEFAULT_KUBERNETES_VERSION = "1.37"

_VERSION_RE = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?")


@dataclass(frozen=True, order=True, slots=True)
class KubernetesVersion:
    major: int
    minor: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    @property
    def git_version(self) -> str:
        return f"v{self.major}.{self.minor}.0"


def supported_versions() -> tuple[KubernetesVersion, ...]:
    """Every version the committed table (and kubernetes-validate's schemas) cover, oldest first."""
    return _supported()


@cache
def _supported() -> tuple[KubernetesVersion, ...]:
    return tuple(_parse(v) for v in load_table()["kubernetesVersions"])


def _parse(text: str) -> KubernetesVersion:
    match = _VERSION_RE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not a Kubernetes version: {text!r} (expected e.g. '1.30' or 'v1.30.2')")
    return KubernetesVersion(int(match[1]), int(match[2]))


def kubernetes_version(value: str | KubernetesVersion | None = None) -> KubernetesVersion:
    """The emulated version named by ``value`` (None: the default); ValueError for one we do not have."""
    version = value if isinstance(value, KubernetesVersion) else _parse(value or DEFAULT_KUBERNETES_VERSION)
    supported = _supported()
    if version not in supported:
        raise ValueError(f"Kubernetes {version} is not emulated; supported versions: "
                         f"{supported[0]} to {supported[-1]}")
    return version
