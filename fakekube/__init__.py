"""fakekube: an in-memory fake Kubernetes API server, a deterministic controller runtime and pytest fixtures."""

from fakekube.audit import AuditEntry, AuditLog
from fakekube.clock import RealClock, VirtualClock
from fakekube.errors import ApiError
from fakekube.faults import FaultInjector, FaultRule
from fakekube.resources import Registry, ResourceType
from fakekube.store import Store
from fakekube.watch import Watch, WatchEvent

__all__ = [
    "ApiError",
    "AuditEntry",
    "AuditLog",
    "FaultInjector",
    "FaultRule",
    "RealClock",
    "Registry",
    "ResourceType",
    "Store",
    "VirtualClock",
    "Watch",
    "WatchEvent",
    "mock_kubernetes",
]


def __getattr__(name: str) -> object:
    # fakekube.mock_kubernetes without importing the HTTP front on every ``import fakekube``
    if name == "mock_kubernetes":
        from fakekube.inprocess import mock_kubernetes

        return mock_kubernetes
    raise AttributeError(f"module 'fakekube' has no attribute {name!r}")


def _version() -> str:
    # One source, pyproject.toml, read from the installed package's metadata; a bare checkout has none.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fakekube")
    except PackageNotFoundError:
        return "0+unknown"


__version__ = _version()
