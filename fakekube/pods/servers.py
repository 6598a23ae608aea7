"""Servers a container's command can start, emulated: what listens on which port, as port-forward handlers.

Recognised, from the command line and the container's files (nothing runs on the host):

- ``python -m http.server [PORT] [-d DIR]`` (and ``python3``): an HTTP server of the directory's files
  (``DIR`` or the working directory; port 8000 by default, as CPython's ``http.server``);
- ``python [-u] SCRIPT PORT...`` where SCRIPT is a TCP echo server on the ports its arguments name — it binds
  sockets to ports from ``sys.argv`` and sends back what it receives, as the official Python client's e2e
  ``port_server.py`` does (kubernetes-client/python ``kubernetes/e2e_test/port_server.py``);
- ``nc``/``ncat`` listening with ``-e cat`` / ``--exec cat`` and ``socat TCP-LISTEN:PORT,... EXEC:cat``: echo.

Anything else is not a server here (``server_for`` is None).
"""

from __future__ import annotations

import re
from typing import Any

from fakekube.pods.filesystem import FileSystemError
from fakekube.pods.portforward import PortConnection, PortHandler, http_responder


def echo(conn: PortConnection) -> None:
    """Sends back what it receives until the client closes."""
    while data := conn.recv():
        conn.send(data)


def _is_echo_script(text: str) -> bool:
    # What makes a script an echo server on its argument ports: it reads ports from sys.argv, binds or serves
    # TCP, receives and sends (the received data) back. A script that does more is not recognised.
    return ("sys.argv" in text and ("socketserver" in text or "bind(" in text)
            and "recv(" in text and re.search(r"\.send(all)?\(", text) is not None)


def _python(session: Any, args: list[str]) -> dict[int, PortHandler] | None:
    args = [a for a in args if a not in ("-u", "-B", "-O", "-OO", "-s", "-S", "-E")]
    if args[:2] == ["-m", "http.server"]:
        rest = args[2:]
        port, directory = 8000, session.cwd
        i = 0
        while i < len(rest):
            if rest[i] in ("-d", "--directory") and i + 1 < len(rest):
                directory = session.path(rest[i + 1])
                i += 1
            elif rest[i] in ("-b", "--bind") and i + 1 < len(rest):
                i += 1
            elif rest[i].isdigit():
                port = int(rest[i])
            i += 1
        return {port: http_responder(session.files, "", root=directory)}
    if not args or args[0].startswith("-"):
        return None
    try:
        text = session.read_file(args[0]).decode(errors="replace")
    except FileSystemError:
        return None
    ports = [int(a) for a in args[1:] if a.isdigit() and 0 < int(a) < 65536]
    if ports and _is_echo_script(text):
        return dict.fromkeys(ports, echo)
    return None


def _netcat(args: list[str]) -> dict[int, PortHandler] | None:
    if not any(a.startswith("-") and "l" in a.lstrip("-") and not a.startswith("--") for a in args) \
            and "--listen" not in args:
        return None
    joined = " ".join(args)
    if not re.search(r"(-e|--exec|-c|--sh-exec)\s+(/bin/)?cat\b", joined):
        return None
    port = next((int(a) for a in reversed(args) if a.isdigit()), None)
    return {port: echo} if port else None


def _socat(args: list[str]) -> dict[int, PortHandler] | None:
    if len(args) < 2:
        return None
    m = re.match(r"TCP4?-LISTEN:(\d+)", args[0], re.I)
    if m is None or not re.match(r"(EXEC|SYSTEM):(/bin/)?cat\b", args[1], re.I):
        return None
    return {int(m.group(1)): echo}


def server_for(session: Any, argv: list[str]) -> dict[int, PortHandler] | None:
    """The ports ``argv`` would listen on and what answers each, when it is a server emulated here."""
    if not argv:
        return None
    name = argv[0].rsplit("/", 1)[-1]
    if re.fullmatch(r"python(3(\.\d+)?)?", name):
        return _python(session, argv[1:])
    if name in ("nc", "ncat", "netcat"):
        return _netcat(argv[1:])
    if name == "socat":
        return _socat(argv[1:])
    return None
