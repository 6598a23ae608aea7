"""What a fake pod's containers do when a client talks to them: exec, attach, logs, port-forward, usage.

kwok's ClusterExec, ClusterLogs, ClusterAttach, ClusterPortForward and ClusterResourceUsage
(sigs.k8s.io/kwok ``pkg/apis/v1alpha1``) are the model: a behaviour is chosen per rule, and a rule picks
containers by namespace, pod name, pod labels and container name (``fakekube.pods.selection``).
"""
