"""A typical unit test's workload (issue 31) three ways in one run: the official ``kubernetes`` client in process
(``fakekube.mock_kubernetes``), the same client over HTTP (``ApiServer`` on loopback), and the Store API.

Workload per way: a namespace, then N ConfigMaps created, each read, updated (replace), patched (strategic
merge), the namespace listed (N/10 times), each deleted. Times are the process's CPU time (``process_time``:
client and server threads, user and system), not wall time: the machine is shared, and over HTTP the
server's thread works in this process too (wall times are reported next to them). Reported: mean µs per operation of each type (median of
``repeat`` runs), the in-process speed-up over HTTP per operation, the top costs of one in-process run's
profile (cProfile, own time), one read's cost split (the client alone, ``Front.handle``, ``Store.get``), and
setup/teardown of ``mock_kubernetes`` and of an ``ApiServer`` (wall time,
median of 20).

``python -m benchmarks inprocess``; ``run(n, repeat)``.
"""

from __future__ import annotations

import cProfile
import io
import pstats
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.timing import quiet_gc
from fakekube.store import Store

OPERATIONS = ("create", "read", "update", "patch", "list", "delete")
Workload = Callable[[int], dict[str, float]]


def _client_workload(core: Any, client: Any, n: int, namespace: str) -> dict[str, float]:
    """Seconds per operation type over one pass of the workload through a ``CoreV1Api``."""
    spent: dict[str, float] = {}

    def timed(op: str, fn: Callable[[int], Any], count: int = n) -> list[Any]:
        start, wall = time.process_time(), time.perf_counter()
        out = [fn(i) for i in range(count)]
        spent[op] = (time.process_time() - start) / count
        spent[f"wall_{op}"] = (time.perf_counter() - wall) / count
        return out

    client.CoreV1Api  # noqa: B018 - the module is imported before timing starts
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=namespace)))
    timed("create", lambda i: core.create_namespaced_config_map(namespace, client.V1ConfigMap(
        metadata=client.V1ObjectMeta(name=f"cm-{i}", labels={"app": "bench"}), data={"k": str(i)})))
    read = timed("read", lambda i: core.read_namespaced_config_map(f"cm-{i}", namespace))

    def update(i: int) -> Any:
        obj = read[i]
        obj.data = {"k": f"u{i}"}
        return core.replace_namespaced_config_map(f"cm-{i}", namespace, obj)

    timed("update", update)
    timed("patch", lambda i: core.patch_namespaced_config_map(f"cm-{i}", namespace, {"data": {"p": "1"}}))
    timed("list", lambda i: core.list_namespaced_config_map(namespace, label_selector="app=bench"), max(n // 10, 1))
    timed("delete", lambda i: core.delete_namespaced_config_map(f"cm-{i}", namespace))
    return spent


def _store_workload(store: Store, n: int, namespace: str) -> dict[str, float]:
    spent: dict[str, float] = {}

    def timed(op: str, fn: Callable[[int], Any], count: int = n) -> list[Any]:
        start, wall = time.process_time(), time.perf_counter()
        out = [fn(i) for i in range(count)]
        spent[op] = (time.process_time() - start) / count
        spent[f"wall_{op}"] = (time.perf_counter() - wall) / count
        return out

    store.create("namespaces", {"metadata": {"name": namespace}})
    timed("create", lambda i: store.create("configmaps", {"metadata": {"name": f"cm-{i}", "labels": {"app": "bench"}},
                                                          "data": {"k": str(i)}}, namespace))
    read = timed("read", lambda i: store.get("configmaps", f"cm-{i}", namespace))
    timed("update", lambda i: store.update("configmaps", {**read[i], "data": {"k": f"u{i}"}}, namespace))
    timed("patch", lambda i: store.patch("configmaps", f"cm-{i}", {"data": {"p": "1"}}, namespace,
                                         patch_type="application/strategic-merge-patch+json"))
    timed("list", lambda i: store.list("configmaps", namespace, label_selector="app=bench"), max(n // 10, 1))
    timed("delete", lambda i: store.delete("configmaps", f"cm-{i}", namespace))
    return spent


def _median(runs: list[dict[str, float]], prefix: str = "") -> dict[str, float]:
    return {op: round(statistics.median(run[prefix + op] for run in runs) * 1e6, 1) for op in OPERATIONS}


def _setup_teardown(repeat: int = 20) -> dict[str, float]:
    from fakekube.inprocess import mock_kubernetes
    from fakekube.server.app import ApiServer

    store = Store()
    up, down, sup, sdown = [], [], [], []
    for _ in range(repeat):
        mock = mock_kubernetes(store)
        start = time.perf_counter()
        mock.__enter__()
        entered = time.perf_counter()
        mock.__exit__(None, None, None)
        up.append(entered - start)
        down.append(time.perf_counter() - entered)
        start = time.perf_counter()
        server = ApiServer(store).start()
        entered = time.perf_counter()
        server.stop()
        sup.append(entered - start)
        sdown.append(time.perf_counter() - entered)
    start = time.perf_counter()
    for _ in range(repeat):
        Store()
    ms = 1e3
    return {"store_ms": round((time.perf_counter() - start) / repeat * ms, 2),
            "mock_kubernetes_setup_ms": round(statistics.median(up) * ms, 2),
            "mock_kubernetes_teardown_ms": round(statistics.median(down) * ms, 2),
            "api_server_setup_ms": round(statistics.median(sup) * ms, 2),
            "api_server_teardown_ms": round(statistics.median(sdown) * ms, 2)}


def _profile(n: int) -> dict[str, Any]:
    from kubernetes import client, config

    from fakekube.inprocess import mock_kubernetes

    profiler = cProfile.Profile()
    with mock_kubernetes():
        config.load_kube_config()
        core = client.CoreV1Api()
        profiler.enable()
        _client_workload(core, client, n, "profiled")
        profiler.disable()
    stats = pstats.Stats(profiler)
    total = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
    rows = sorted(stats.stats.items(), key=lambda item: -item[1][2])[:15]  # type: ignore[attr-defined]

    def cumulative(path_end: str, function: str) -> float:
        return sum(row[3] for (file, _, name), row in stats.stats.items()  # type: ignore[attr-defined]
                   if file.endswith(path_end) and name == function) / total

    # Where the time goes: inside the front (all of Front.handle), of which the store's verbs; the rest is the
    # client (request building, urllib3, deserialisation into models) and the transport.
    return {"front_share": round(cumulative("fakekube/server/front.py", "handle"), 3),
            "store_share": round(cumulative("fakekube/server/rest.py", "serve"), 3),
            "top_own_time": [{"function": f"{Path(file).parent.name}/{Path(file).name}:{line}:{name}",
                              "own_share": round(row[2] / total, 3)} for (file, line, name), row in rows]}


def _split(n: int) -> dict[str, dict[str, float]]:
    """Where one in-process operation's process CPU time goes, µs per operation of each type, over one pass of
    the workload: ``transport`` is the urllib3 transport's glue (``PoolManager.urlopen`` but ``Front.handle``),
    ``front`` is ``Front.handle`` but the verb (routing, authentication, authorization, negotiation, the
    Audit-ID, the response), of which ``encoding`` is the body's serialisation, ``store`` the verb
    (``rest.serve``: the request body's decoding, the options and the store's verb), ``client`` the rest (the
    client's request building, urllib3's request and response handling, its model (de)serialisation). Each
    wrapped call costs about a µs more than it does unwrapped."""
    from kubernetes import client, config
    from urllib3.poolmanager import PoolManager

    from fakekube.inprocess import mock_kubernetes
    from fakekube.server import exchange, rest
    from fakekube.server.front import Front

    spent: dict[tuple[str, str], float] = {}
    current = [""]

    def timed_call(part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                key = (current[0], part)
                spent[key] = spent.get(key, 0.0) + time.process_time() - start
        return call

    originals = {(PoolManager, "urlopen"): None, (Front, "handle"): None, (rest, "serve"): None,
                 (exchange.Exchange, "_send_document"): None}
    parts = {"urlopen": "urlopen", "handle": "handle", "serve": "store", "_send_document": "encoding"}
    with mock_kubernetes(), quiet_gc():
        config.load_kube_config()
        core = client.CoreV1Api()
        for owner, name in originals:
            originals[(owner, name)] = getattr(owner, name)
            setattr(owner, name, timed_call(parts[name], getattr(owner, name)))
        try:
            totals: dict[str, float] = {}
            namespace = "split"
            core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=namespace)))
            counts = {o: n for o in OPERATIONS}
            counts["list"] = max(n // 10, 1)
            work = {
                "create": lambda i: core.create_namespaced_config_map(namespace, client.V1ConfigMap(
                    metadata=client.V1ObjectMeta(name=f"cm-{i}", labels={"app": "bench"}), data={"k": str(i)})),
                "read": lambda i: core.read_namespaced_config_map(f"cm-{i}", namespace),
                "update": lambda i: core.replace_namespaced_config_map(f"cm-{i}", namespace, read[i]),
                "patch": lambda i: core.patch_namespaced_config_map(f"cm-{i}", namespace, {"data": {"p": "1"}}),
                "list": lambda i: core.list_namespaced_config_map(namespace, label_selector="app=bench"),
                "delete": lambda i: core.delete_namespaced_config_map(f"cm-{i}", namespace),
            }
            read: list[Any] = []
            for name in OPERATIONS:
                current[0] = name
                start = time.process_time()
                out = [work[name](i) for i in range(counts[name])]
                totals[name] = time.process_time() - start
                if name == "read":
                    read = out
                    for i, obj in enumerate(read):
                        obj.data = {"k": f"u{i}"}
        finally:
            for (owner, name), original in originals.items():
                setattr(owner, name, original)
    result = {}
    for name in OPERATIONS:
        count = counts[name]

        def us(seconds: float, count: int = count) -> float:
            return round(seconds / count * 1e6, 1)

        urlopen, handle = spent.get((name, "urlopen"), 0.0), spent.get((name, "handle"), 0.0)
        store, encoding = spent.get((name, "store"), 0.0), spent.get((name, "encoding"), 0.0)
        result[name] = {"total": us(totals[name]), "client": us(totals[name] - urlopen),
                        "transport": us(urlopen - handle), "front": us(handle - store),
                        "front_encoding": us(encoding), "store": us(store)}
    return result


def _client_alone(n: int) -> dict[str, float]:
    """The client's own cost per operation (process CPU µs): the workload with urllib3 answering each request
    with a canned copy of the answer the fake gave it — what no transport or server can take away."""
    import urllib3
    from kubernetes import client, config
    from urllib3.poolmanager import PoolManager

    from fakekube.inprocess import mock_kubernetes

    answers: dict[str, tuple[int, list[tuple[str, str]], bytes]] = {}
    current = [""]
    with mock_kubernetes(), quiet_gc():
        config.load_kube_config()
        routed = PoolManager.urlopen

        def record(self: Any, method: str, url: str, redirect: bool = True, **kw: Any) -> Any:
            response = routed(self, method, url, redirect=redirect, **kw)
            if current[0] not in answers and current[0]:
                answers[current[0]] = (response.status, list(response.headers.items()), response.data)
                return urllib3.HTTPResponse(response.data, headers=response.headers, status=response.status,
                                            reason=response.reason, preload_content=True)
            return response

        def canned(self: Any, method: str, url: str, redirect: bool = True, **kw: Any) -> Any:
            status, headers, body = answers[current[0]]
            return urllib3.HTTPResponse(io.BytesIO(body), headers=headers, status=status, reason="OK",
                                        preload_content=kw.get("preload_content", True))

        core = client.CoreV1Api()
        namespace = "canned"
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=namespace)))
        for i in range(1, n):  # the list's answer has n items, as the workload's
            core.create_namespaced_config_map(namespace, {"metadata": {"name": f"cm-{i}", "labels": {"app": "bench"}},
                                                          "data": {"k": str(i)}})
        state: dict[str, Any] = {}
        PoolManager.urlopen = record  # type: ignore[method-assign]
        try:
            for name in OPERATIONS:  # one real answer of each operation, in the workload's order
                current[0] = name
                _one(core, client, name, namespace, state)
            PoolManager.urlopen = canned  # type: ignore[method-assign]
            runs = []
            for _ in range(3):
                spent = {}
                for name in OPERATIONS:
                    current[0] = name
                    count = n if name != "list" else max(n // 10, 1)
                    start = time.process_time()
                    for _ in range(count):
                        _one(core, client, name, namespace, state)
                    spent[name] = (time.process_time() - start) / count
                runs.append(spent)
        finally:
            PoolManager.urlopen = routed  # type: ignore[method-assign]
    return _median(runs)


def _one(core: Any, client: Any, name: str, namespace: str, state: dict[str, Any]) -> Any:
    """One operation of the workload on ConfigMap ``cm-0`` (its answer may be canned); an update replaces
    the object a read returned, as the workload's do."""
    if name == "create":
        return core.create_namespaced_config_map(namespace, client.V1ConfigMap(
            metadata=client.V1ObjectMeta(name="cm-0", labels={"app": "bench"}), data={"k": "0"}))
    if name == "read":
        state["read"] = core.read_namespaced_config_map("cm-0", namespace)
        state["read"].data = {"k": "u0"}
        return state["read"]
    if name == "update":
        return core.replace_namespaced_config_map("cm-0", namespace, state["read"])
    if name == "patch":
        return core.patch_namespaced_config_map("cm-0", namespace, {"data": {"p": "1"}})
    if name == "list":
        return core.list_namespaced_config_map(namespace, label_selector="app=bench")
    return core.delete_namespaced_config_map("cm-0", namespace)


def run(n: int = 200, repeat: int = 3) -> dict[str, Any]:
    warnings.simplefilter("ignore")
    from kubernetes import client, config

    from fakekube.inprocess import mock_kubernetes
    from fakekube.server.app import ApiServer

    runs: dict[str, list[dict[str, float]]] = {"in_process": [], "http": [], "store_api": []}
    with quiet_gc():
        for r in range(repeat):
            with mock_kubernetes() as cluster:
                config.load_kube_config()
                runs["in_process"].append(_client_workload(client.CoreV1Api(), client, n, f"bench-{r}"))
            del cluster
            with tempfile.TemporaryDirectory() as directory, ApiServer(Store()) as server:
                api = config.new_client_from_config(config_file=str(server.write_kubeconfig(Path(directory) / "k")))
                runs["http"].append(_client_workload(client.CoreV1Api(api), client, n, f"bench-{r}"))
                api.close()
            runs["store_api"].append(_store_workload(Store(), n, f"bench-{r}"))
    table = {way: _median(samples) for way, samples in runs.items()}
    wall = {way: _median(samples, "wall_") for way, samples in runs.items()}
    speedup = {op: round(table["http"][op] / table["in_process"][op], 1) for op in OPERATIONS}
    return {"n": n, "repeat": repeat, "us_per_operation": table, "in_process_speedup_over_http": speedup,
            "wall_us_per_operation": wall,
            "wall_speedup_over_http": {op: round(wall["http"][op] / wall["in_process"][op], 1) for op in OPERATIONS},
            "fixtures": _setup_teardown(), "in_process_profile": _profile(n), "in_process_split_us": _split(n),
            "client_alone_us": _client_alone(n)}


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
