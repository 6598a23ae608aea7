"""Issue 28's targets over a few hundred hypothesis-drawn hostile requests (tests/server/hostile.py): no Python
exception answered as a 500 or logged, no rejected request that changes the store, no hang. The fuzz command
scripts/fuzz-requests runs the same checks over thousands."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.server.hostile import Target, hostile_request


@pytest.fixture(scope="module")
def target() -> Iterator[Target]:
    served = Target()
    yield served
    served.close()


@settings(max_examples=300, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(request=hostile_request())
def test_no_hostile_request_breaks_the_server_or_the_store(target: Target, request: Any) -> None:
    assert target.check(request) == []


def test_the_checks_catch_what_they_look_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from fakekube import errors
    from fakekube.server import rest

    served = Target()
    try:
        request = {"method": "GET", "path": "/api/v1/namespaces/fz/configmaps", "query": {}, "body": None}
        assert served.check(request) == []

        def broken(req: Any, rt: Any, verb: str) -> Any:
            raise TypeError("planted")

        monkeypatch.setattr(rest, "serve", broken)
        assert {f.kind for f in served.check(request)} == {"python-500", "logged-exception"}

        def leaky(req: Any, rt: Any, verb: str) -> Any:
            served.store.create("configmaps", {"metadata": {"generateName": "leak-"}}, "fz")
            raise errors.BadRequest("planted")

        monkeypatch.setattr(rest, "serve", leaky)
        assert [f.kind for f in served.check(request)] == ["changed-on-rejection"]
        assert served.report.counts()["requests"] == 3
    finally:
        served.close()
