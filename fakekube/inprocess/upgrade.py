"""An upgraded connection (exec, attach, port-forward over WebSocket or SPDY) in process.

A 101 answer carries the protocol to run on the connection (``HttpResponse.upgrade``), which the threading server
runs on the client's socket in the request's thread. In process there is no such socket, so the protocol runs in a
thread on one end of a Unix socket pair and the client's transport reads and writes the other end. A socket pair
never reaches the network (the network guard lets it connect), and it gives the protocol what it expects of a
socket: blocking reads, writes from other threads, shutdown waking a blocked read.
"""

from __future__ import annotations

import contextlib
import socket
import threading

from fakekube.server.front import HttpResponse
from fakekube.server.handler import UPGRADED_IDLE_TIMEOUT


def start(answer: HttpResponse) -> socket.socket:
    """Run ``answer``'s upgrade on one end of a new socket pair, in a thread; the client's end."""
    upgrade = answer.upgrade
    assert upgrade is not None
    server, client = socket.socketpair()
    server.settimeout(UPGRADED_IDLE_TIMEOUT)  # as the threading server's upgraded connections

    def run() -> None:
        reader = server.makefile("rb")
        try:
            upgrade(server, reader)
        except OSError:  # the client went away
            pass
        finally:
            reader.close()
            with contextlib.suppress(OSError):
                server.shutdown(socket.SHUT_RDWR)
            server.close()
            answer.finish()

    threading.Thread(target=run, name="fakekube-inprocess-upgrade", daemon=True).start()
    return client
