"""Fixtures of the live differential tests: the real control plane and fakekube, each once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.differential.fakekube_side import running_fakekube
from tests.differential.harness.client import Client
from tests.differential.harness.oracle import OracleUnavailable, running_oracle


@pytest.fixture(scope="session")
def oracle_client() -> Iterator[Client]:
    try:
        context = running_oracle()
        oracle = context.__enter__()
    except OracleUnavailable as exc:
        if os.environ.get("FAKEKUBE_REQUIRE_ORACLE") == "1":
            pytest.fail(f"FAKEKUBE_REQUIRE_ORACLE=1 but {exc}")
        pytest.skip(f"no oracle: {exc}")
    client = Client.from_kubeconfig(oracle.kubeconfig)
    try:
        yield client
    finally:
        client.close()
        context.__exit__(None, None, None)


@pytest.fixture(scope="session")
def fakekube_client() -> Iterator[Client]:
    with running_fakekube() as client:
        yield client
