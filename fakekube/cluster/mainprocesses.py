"""The kubelet actor's side of a container's main command (``fakekube.pods.mainprocess``): start it when the
container starts, drive its waits on the runtime's clock, report its end as the container's exit, stop it when
the container stops.

Each main command is a task of the runtime's scheduler, not a thread: a ``sleep 5`` is a timer on the
simulation's virtual clock, or on the wall-clock server's loop, so a thousand sleeping containers cost a
thousand timers. Its output goes to the container instance's log as it is written (``kubectl logs -f`` sees
each line when the command writes it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from fakekube.pods.mainprocess import MainCommand

logger = logging.getLogger("fakekube.cluster.kubelet")

Obj = dict[str, Any]


class _Running:
    def __init__(self, command: MainCommand) -> None:
        self.command = command
        self.stopped = False
        self.wake: Any = None

    def stop(self) -> None:
        self.stopped = True
        self.command.stop()
        if self.wake is not None:
            self.wake.set_result(None)


class MainProcesses:
    """One kubelet's running main commands, by (pod uid, container index)."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self.store = getattr(runtime, "real_store", runtime.store)
        self.running: dict[tuple[str, int], _Running] = {}

    def prepare(self, pod: Mapping[str, Any], spec: Mapping[str, Any]) -> MainCommand | None:
        """The container's main command when it can run here, else None (the kubelet's rules apply)."""
        registry = getattr(self.store, "pod_exec", None)
        if registry is None or not (spec.get("command") or spec.get("args")):
            return None
        namespace = str((pod.get("metadata") or {}).get("namespace") or "")
        uid = str((pod.get("metadata") or {}).get("uid") or "")
        store = self.store

        def lookup(plural: str, name: str) -> Mapping[str, Any] | None:
            return store.stored_object("/" + plural, (namespace, name))  # read-only, no copy: ConfigMaps, Secrets

        def listen(port: int, handler: Any) -> Callable[[], None]:
            return registry.port_forwards.listen(uid, port, handler)

        try:
            return MainCommand.prepare(registry, pod, spec, lookup, now=store.clock.now, listen=listen)
        except Exception:  # a bug here must not stop the kubelet: the container runs as before
            logger.exception("cannot prepare the main command of %s", spec.get("name"))
            return None

    def start(self, key: tuple[str, int], command: MainCommand, log: Any,
              exited: Callable[[int], None]) -> None:
        self.stop(key)
        running = self.running[key] = _Running(command)
        run = command.run(lambda data: log.append(data, "stdout"), lambda data: log.append(data, "stderr"))
        self.runtime.scheduler.spawn(self._drive(key, running, run, exited), f"main-{key[0]}-{key[1]}")

    def stop(self, key: tuple[str, int]) -> None:
        running = self.running.pop(key, None)
        if running is not None:
            running.stop()

    def stop_pod(self, uid: str) -> None:
        for key in [k for k in self.running if k[0] == uid]:
            self.stop(key)

    async def _drive(self, key: tuple[str, int], running: _Running, run: Any, exited: Callable[[int], None]) -> None:
        scheduler = self.runtime.scheduler
        try:
            request = next(run)
            while True:
                if running.stopped:
                    run.close()
                    return
                wake = running.wake = scheduler.future()
                if request.seconds is not None:
                    scheduler.call_later(request.seconds, lambda wake=wake: wake.set_result(None))
                await wake
                running.wake = None
                if running.stopped:
                    run.close()
                    return
                request = run.send(None)
        except StopIteration as done:
            code = int(done.value or 0)
        except Exception:  # an emulation bug: the container keeps running silently, as if nothing ran
            logger.exception("main command of container %s failed", key)
            return
        if not running.stopped and self.running.get(key) is running:
            del self.running[key]
            exited(code)
