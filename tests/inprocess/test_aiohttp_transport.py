"""The in-memory aiohttp transport's request parsing and an async watch left open when its loop ends."""

from __future__ import annotations

import asyncio

import pytest

from fakekube.inprocess import mock_kubernetes
from fakekube.inprocess.requestbytes import Incomplete, parse_request

aiohttp = pytest.importorskip("aiohttp")


def test_a_request_is_parsed_once_whole_with_either_body_framing() -> None:
    head = b"POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    with pytest.raises(Incomplete):
        parse_request(head + b"Content-Length: 4\r\n\r\n{}")
    request, used = parse_request(head + b"Content-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\n")
    assert (request.method, request.target, request.body, request.headers["content-type"]) == (
        "POST", "/api/v1/namespaces", b"{}", "application/json")
    assert used == len(head) + len(b"Content-Length: 2\r\n\r\n{}")
    chunked = head + b"Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n1;ext=1\r\n}\r\n0\r\n\r\n"
    with pytest.raises(Incomplete):
        parse_request(chunked[:-2])
    request, used = parse_request(chunked)
    assert (request.body, used) == (b"{}", len(chunked))


def test_an_open_watch_does_not_hold_the_loop_when_it_ends() -> None:
    async def main() -> None:
        async with aiohttp.ClientSession() as session:
            response = await session.get("http://kubernetes.fakekube.invalid/api/v1/configmaps?watch=1")
            assert response.status == 200
            # the test ends with the stream open: asyncio.run cancels, the watch must stop for the loop to close

    with mock_kubernetes() as cluster:
        asyncio.run(asyncio.wait_for(main(), 5))
        assert cluster.front.streamer._active == set()
