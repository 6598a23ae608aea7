"""What a fake pod's containers do when a client talks to them: exec, attach, logs, port-forward, usage.

kwok's ClusterExec, ClusterLogs, ClusterAttach, ClusterPortForward and ClusterResourceUsage
(sigs.k8s.io/kwok ``pkg/apis/v1alpha1``) are the model: a behaviour is chosen per rule, and a rule picks
containers by namespace, pod name, pod labels and container name (``fakekube.pods.selection``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
_ATTACH_LOCK = threading.Lock()


def attached(store: Any, attribute: str, make: Callable[[Any], T]) -> T:
    """The store's behaviour registry named ``attribute``, made by ``make(store)`` on first use, once even when
    threads race (kubelets, the HTTP front and tests share it)."""
    found = getattr(store, attribute, None)
    if found is None:
        with _ATTACH_LOCK:
            found = getattr(store, attribute, None)
            if found is None:
                found = make(store)
                setattr(store, attribute, found)
    return found
