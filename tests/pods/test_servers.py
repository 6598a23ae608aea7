"""Servers a container's command starts (``fakekube.pods.servers``): which command lines are servers, and what
their port-forward handlers answer."""

from __future__ import annotations

import threading
from typing import Any

from fakekube.pods.commands import Session
from fakekube.pods.execution import ExecRegistry
from fakekube.pods.portforward import PortConnection
from fakekube.pods.servers import server_for

POD: dict[str, Any] = {"metadata": {"name": "p", "namespace": "default", "uid": "u1"},
                       "spec": {"containers": [{"name": "main", "image": "python"}]}}


def session() -> Session:
    proc = ExecRegistry().process(POD, "main", [], lambda p, n: None)
    return Session(proc, "/srv")


def talk(handler: Any, request: bytes) -> bytes:
    sent = bytearray()
    conn = PortConnection(POD, 0, sent.extend, threading.Event())
    conn.incoming.feed(request)
    conn.incoming.close()
    handler(conn)
    return bytes(sent)


def test_which_command_lines_are_servers() -> None:
    s = session()
    s.files.write("/opt/echo.py", b"import socket, sys\nfor p in sys.argv[1:]:\n    s = socket.socket()\n"
                  b"    s.bind(('', int(p)))\n    c, _ = s.accept()\n    c.sendall(c.recv(1024))\n", parents=True)
    s.files.write("/opt/app.py", b"print('hello')\n")
    assert sorted(server_for(s, ["python", "-u", "/opt/echo.py", "1234", "1235"]) or {}) == [1234, 1235]
    assert server_for(s, ["python", "/opt/app.py", "80"]) is None  # not an echo server
    assert server_for(s, ["python", "/opt/missing.py", "80"]) is None
    assert list(server_for(s, ["python3", "-m", "http.server"]) or {}) == [8000]  # CPython's default port
    assert list(server_for(s, ["python3", "-m", "http.server", "9000", "-d", "/www"]) or {}) == [9000]
    assert list(server_for(s, ["nc", "-lk", "-p", "7000", "-e", "cat"]) or {}) == [7000]
    assert server_for(s, ["nc", "-l", "-p", "7000"]) is None  # prints what it gets: not emulated
    assert list(server_for(s, ["socat", "TCP-LISTEN:7001,fork,reuseaddr", "EXEC:cat"]) or {}) == [7001]
    assert server_for(s, ["nginx"]) is None


def test_an_echo_server_sends_back_what_it_gets() -> None:
    handler = (server_for(session(), ["nc", "-lk", "-p", "7000", "-e", "/bin/cat"]) or {})[7000]
    assert talk(handler, b"ping\npong\n") == b"ping\npong\n"


def test_http_server_serves_the_directorys_files() -> None:
    s = session()
    s.files.write("/www/index.html", b"<h1>hi</h1>", parents=True)
    handler = (server_for(s, ["python", "-m", "http.server", "9000", "-d", "/www"]) or {})[9000]
    answer = talk(handler, b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and answer.endswith(b"<h1>hi</h1>")
    missing = talk(handler, b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert missing.startswith(b"HTTP/1.1 404 Not Found\r\n")
