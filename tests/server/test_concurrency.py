"""Eight threads update the same objects through HTTP with retry-on-conflict: no acknowledged write is lost and
every resourceVersion is unique."""

from __future__ import annotations

import http.client
import json
import threading
from urllib.parse import urlsplit

import pytest

CMS = "/api/v1/namespaces/default/configmaps"


@pytest.mark.slow
def test_concurrent_read_modify_write_loses_nothing(kube_server):
    store = kube_server.store
    names = ["counter-a", "counter-b"]
    for name in names:
        store.create("configmaps", {"metadata": {"name": name}, "data": {"n": "0"}}, "default")
    parts = urlsplit(kube_server.url)
    threads, per_thread = 8, 15
    acknowledged: list[tuple[str, str]] = []  # (name, resourceVersion) of every 200 write
    conflicts = [0]
    lock = threading.Lock()
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        try:
            for i in range(per_thread):
                name = names[(index + i) % len(names)]
                while True:
                    conn.request("GET", f"{CMS}/{name}")
                    obj = json.loads(conn.getresponse().read())
                    obj["data"]["n"] = str(int(obj["data"]["n"]) + 1)
                    conn.request("PUT", f"{CMS}/{name}", json.dumps(obj), {"Content-Type": "application/json"})
                    resp = conn.getresponse()
                    body = json.loads(resp.read())
                    if resp.status == 409:
                        assert body["reason"] == "Conflict"
                        with lock:
                            conflicts[0] += 1
                        continue
                    assert resp.status == 200, body
                    with lock:
                        acknowledged.append((name, body["metadata"]["resourceVersion"]))
                    break
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            conn.close()

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(60)
    assert not errors, errors
    assert len(acknowledged) == threads * per_thread
    total = sum(int(store.get("configmaps", n, "default")["data"]["n"]) for n in names)
    assert total == threads * per_thread  # every acknowledged increment is there
    rvs = [rv for _, rv in acknowledged]
    assert len(set(rvs)) == len(rvs)  # every write got its own resourceVersion
    assert len(store.audit.conflicts()) == conflicts[0]
