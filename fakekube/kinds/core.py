"""core/v1 kinds (kubernetes ``pkg/registry/core/<resource>/strategy.go``)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

from fakekube.strategies import NamespaceStrategy, PodStrategy, StatusStrategy, Strategy


class SecretStrategy(Strategy):
    """``stringData`` is write-only: merged into ``data`` base64-encoded, never stored."""

    def prepare_for_create(self, obj: dict[str, Any]) -> None:
        _fold_string_data(obj)

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        _fold_string_data(new)


def _fold_string_data(obj: dict[str, Any]) -> None:
    string_data = obj.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = obj.setdefault("data", {})
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "Namespace": NamespaceStrategy,
    "Pod": PodStrategy,
    "Service": lambda: StatusStrategy({"loadBalancer": {}}),
    "PersistentVolumeClaim": lambda: StatusStrategy({"phase": "Pending"}),
    "Secret": SecretStrategy,
}
