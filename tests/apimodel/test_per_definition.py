"""PerDefinition's thread safety: a node another thread is still building is never handed out."""

from __future__ import annotations

import threading
import time

from fakekube.apimodel.definitions import PerDefinition


class _Slow(PerDefinition[dict]):
    def _build(self, name: str) -> dict:
        node: dict = {}
        self.nodes[name] = node  # registered first, as recursive structs are
        time.sleep(0.05)
        node["fields"] = ["a", "b"]
        return node


def test_a_half_built_node_is_not_handed_to_another_thread() -> None:
    compiler = _Slow({})  # type: ignore[arg-type]
    seen: list[dict] = []
    builder = threading.Thread(target=lambda: compiler.definition("T"))
    builder.start()
    time.sleep(0.01)  # the builder holds the lock, the node registered but not filled
    seen.append(dict(compiler.definition("T")))  # what it held when handed out
    builder.join()
    assert seen[0] == {"fields": ["a", "b"]}
