"""fakekube.cluster: the actors of a real cluster — kubelets, the scheduler, kube-controller-manager's
controllers and the bootstrap objects — written once against fakekube's runtime, on either clock.

See docs/cluster.md.
"""

from fakekube.cluster.cluster import ACTORS, CONTROLLERS, Cluster, resolve_controllers
from fakekube.cluster.nodes import NodeConfig
from fakekube.cluster.timing import FailureRule, Timing

__all__ = ["ACTORS", "CONTROLLERS", "Cluster", "FailureRule", "NodeConfig", "Timing", "resolve_controllers"]
