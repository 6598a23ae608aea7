"""How fast the cluster acts, and how pods fail: every delay is a seeded ``Lag``, every failure a rule.

One ``Timing`` serves both clocks: behind ``fakekube serve`` the delays are wall-clock seconds, in a
simulation they are virtual seconds drawn from the simulation's seeded streams (so a run replays byte for
byte). The defaults are short, so a test waits little, but keep the real order of events (a pod is
scheduled, then ContainerCreating, then Running, then Ready after its readiness probe's initial delay).
Back-off periods default to upstream's (kubelet ``pkg/kubelet/kubelet.go`` ``backOffPeriod`` 10 s doubling to
``MaxContainerBackOff`` 300 s; job controller ``DefaultJobPodFailureBackOff`` 10 s to
``MaxJobPodFailureBackOff`` 10 min; DaemonSet controller ``failedPodsBackoff`` 1 s to 15 min) and are the knobs a test shortens.

Per pod, annotations on the pod (or its template) override the rules (``ANNOTATIONS``):
``sim.fakekube.io/exit-code`` (a Never/OnFailure pod's containers exit with it), ``sim.fakekube.io/run-seconds``
(how long they run), ``sim.fakekube.io/failure`` (``ImagePullBackOff``, ``ErrImagePull``,
``CrashLoopBackOff``), ``sim.fakekube.io/ready-seconds`` (readiness delay).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field, replace
from typing import Any

from fakekube.sim.lag import Lag

FAILURE_MODES = ("ImagePullBackOff", "ErrImagePull", "CrashLoopBackOff")
ANNOTATION_PREFIX = "sim.fakekube.io/"
EXIT_CODE = ANNOTATION_PREFIX + "exit-code"
RUN_SECONDS = ANNOTATION_PREFIX + "run-seconds"
FAILURE = ANNOTATION_PREFIX + "failure"
READY_SECONDS = ANNOTATION_PREFIX + "ready-seconds"
ANNOTATIONS = (EXIT_CODE, RUN_SECONDS, FAILURE, READY_SECONDS)


@dataclass(frozen=True)
class FailureRule:
    """Containers whose image matches ``image`` (an fnmatch pattern) fail in ``mode``.

    ``ImagePullBackOff`` / ``ErrImagePull``: the image never pulls, the pod stays Pending. ``CrashLoopBackOff``:
    the container starts, exits with ``exit_code`` after ``Timing.crash_after`` and is restarted with back-off.
    """

    image: str
    mode: str = "CrashLoopBackOff"
    exit_code: int = 1

    def __post_init__(self) -> None:
        if self.mode not in FAILURE_MODES:
            raise ValueError(f"unknown failure mode {self.mode!r}; choose one of {', '.join(FAILURE_MODES)}")

    def matches(self, image: str) -> bool:
        return fnmatch.fnmatchcase(image, self.image)

    @classmethod
    def parse(cls, text: str) -> FailureRule:
        """``PATTERN=MODE`` (the ``--fail-image`` flag), e.g. ``*:broken=ImagePullBackOff``."""
        pattern, sep, mode = text.rpartition("=")
        if not sep or not pattern:
            raise ValueError(f"expected PATTERN=MODE, got {text!r}")
        return cls(pattern, mode)


def _lag(value: Lag | float) -> Lag:
    return Lag.coerce(value)


@dataclass(frozen=True)
class Timing:
    """Delays (seconds, or ``Lag`` distributions) and failure rules of the cluster's actors."""

    schedule_delay: Lag = field(default_factory=Lag.zero)  # pod seen by the scheduler → binding
    accept_delay: Lag = field(default_factory=lambda: Lag.uniform(0.01, 0.05))  # bound → first kubelet status
    start_latency: Lag = field(default_factory=lambda: Lag.uniform(0.05, 0.2))  # → containers running
    ready_delay: Lag = field(default_factory=Lag.zero)  # started → Ready, on top of the probe's initial delay
    probe_scale: float = 1.0  # multiplies readinessProbe.initialDelaySeconds (0 ignores it)
    run_duration: Lag = field(default_factory=lambda: Lag.fixed(0.5))  # a Never/OnFailure container's run
    termination_delay: Lag = field(default_factory=lambda: Lag.uniform(0.05, 0.2))  # SIGTERM → exit (≤ grace)
    crash_after: Lag = field(default_factory=lambda: Lag.fixed(0.2))  # a crash-looping container's run
    restart_backoff: float = 10.0  # kubelet back-off before restarting a failed container, doubling
    restart_backoff_cap: float = 300.0
    job_backoff: float = 10.0  # job controller's delay before replacing a failed pod, doubling
    job_backoff_cap: float = 600.0
    daemon_backoff: float = 1.0  # DaemonSet controller's back-off before replacing a failed daemon pod, doubling
    daemon_backoff_cap: float = 900.0
    lease_interval: float | None = 10.0  # kubelet lease renewals (None: register the lease, never renew)
    node_status_interval: float | None = 300.0  # kubelet node status reports when nothing changed
    watch_lag: Lag = field(default_factory=Lag.zero)  # informer delivery lag of every cluster actor
    api_latency: Lag = field(default_factory=Lag.zero)  # each actor request's latency
    failures: tuple[FailureRule, ...] = ()

    def __post_init__(self) -> None:
        for name in ("schedule_delay", "accept_delay", "start_latency", "ready_delay", "run_duration",
                     "termination_delay", "crash_after", "watch_lag", "api_latency"):
            object.__setattr__(self, name, _lag(getattr(self, name)))
        object.__setattr__(self, "failures", tuple(self.failures))

    def with_(self, **changes: Any) -> Timing:
        return replace(self, **changes)

    @classmethod
    def fast(cls, **changes: Any) -> Timing:
        """Every delay zero and back-offs of a few milliseconds: for tests that only care about order."""
        base = cls(schedule_delay=0, accept_delay=0, start_latency=0, ready_delay=0, probe_scale=0,
                   run_duration=0.01, termination_delay=0, crash_after=0.01, restart_backoff=0.01,
                   restart_backoff_cap=0.05, job_backoff=0.01, job_backoff_cap=0.05,
                   daemon_backoff=0.01, daemon_backoff_cap=0.05)
        return replace(base, **changes)

    def failure_for(self, image: str) -> FailureRule | None:
        for rule in self.failures:
            if rule.matches(image):
                return rule
        return None
