from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.webhooks.server import WebhookServer


@pytest.fixture(scope="module")
def hook_server() -> Iterator[WebhookServer]:
    server = WebhookServer()
    yield server
    server.close()


@pytest.fixture
def webhook(hook_server: WebhookServer) -> Iterator[WebhookServer]:
    hook_server.handlers.clear()
    hook_server.reviews.clear()
    hook_server.delay = 0.0
    yield hook_server
