"""A small user-written controller with a lost update, for the explore tests.

The guestbook controller greets every pod by appending a line to one ConfigMap's ``data.log``: it reads the
ConfigMap from its cache and sends a merge patch of the whole log. From a stale cache (its own previous
write not seen yet, two workers) the patch overwrites a newer log and a greeting is lost for good — in some
seeds. ``lock=True`` sends the patch with the base's resourceVersion (MergeFromWithOptimisticLock): a stale
base gets 409 and the reconcile is retried, so nothing is lost.
"""

from __future__ import annotations

from typing import Any

from fakekube import errors
from fakekube.explore import ObjectRef, Run, Violation
from fakekube.jsonvalues import json_copy
from fakekube.sim import Lag, MergeFrom, Request, Simulation

BOOK = "guestbook"
MANAGER = "guestbook-manager"
ACTOR = "guestbook"


def install(sim: Simulation, *, lock: bool = False, workers: int = 2) -> None:
    mgr = sim.manager(MANAGER, cache_lag=Lag.exponential(0.005), api_latency=Lag.uniform(0.001, 0.003))
    client = mgr.client(ACTOR)

    async def reconcile(req: Request) -> None:
        try:
            await client.get("pods", req.name, req.namespace)
        except errors.NotFound:
            return
        book = await client.get("configmaps", BOOK, "default")
        log = (book.get("data") or {}).get("log", "")
        line = f"hello {req.name};"
        if line in log:
            return
        base = json_copy(book)
        book.setdefault("data", {})["log"] = log + line
        await client.patch("configmaps", book, MergeFrom(base, optimistic_lock=lock))

    mgr.controller("guestbook", reconcile, workers=workers).for_("pods")


def drive(sim: Simulation, *, guests: int = 4, gap: float = 0.1) -> None:
    loader = sim.manager("loader").client("loader")
    rng = sim.rng("loader")

    async def arrive() -> None:
        await loader.create("configmaps", {"metadata": {"name": BOOK, "namespace": "default"}, "data": {"log": ""}})
        for i in range(guests):
            await sim.sleep(rng.uniform(0, gap))
            await loader.create("pods", {"metadata": {"name": f"guest-{i}", "namespace": "default"},
                                         "spec": {"containers": [{"name": "c", "image": "nginx"}]}})

    sim.run_until_complete(arrive())
    sim.run(for_=5)


def missing(sim: Simulation, guests: int = 4) -> list[str]:
    log = sim.store.get("configmaps", BOOK, "default")["data"]["log"]
    return [f"guest-{i}" for i in range(guests) if f"hello guest-{i};" not in log]


def scenario(run: Run) -> Simulation:
    """The guestbook: 4 guests ``gap`` seconds apart at most; params ``lock``, ``workers``, ``gap``."""
    sim = run.simulation()
    install(sim, lock=run.param("lock", False), workers=run.param("workers", 2))
    drive(sim, gap=run.param("gap", 0.1))
    return sim


def every_guest_greeted(result: Any) -> list[Violation]:
    """Every guest's greeting is in the log."""
    book = ObjectRef("configmaps", BOOK, "default")
    return [Violation("every-guest-greeted", f"{name} was not greeted", book) for name in missing(result.sim)]


def crashes_on_even_seeds(run: Run) -> Simulation:
    """A scenario whose driver fails on even seeds (a run that errors is a finding too)."""
    sim = run.simulation()
    if run.seed % 2 == 0:
        raise RuntimeError(f"driver failed on seed {run.seed}")
    return sim
