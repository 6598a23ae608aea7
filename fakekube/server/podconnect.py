"""``pods/exec`` and ``pods/attach``: the apiserver's checks, then the upgrade to a channel WebSocket.

The apiserver (kubernetes ``pkg/registry/core/pod/rest/subresources.go`` ``ExecREST``/``AttachREST`` and
``pkg/registry/core/pod/strategy.go`` ``streamLocation``, v1.37.2) reads the pod (404), checks the container
(400 ``container X is not valid for pod P``, or a name must be chosen among several), needs a node (400
``pod P does not have a host assigned``) that exists (a 404 ``pods "NODE" not found``, sic) with an address
(a 500 without reason otherwise), and — for a request that is not an
upgrade — answers 400 ``Upgrade request required`` (apimachinery ``pkg/util/proxy/upgradeaware.go``). A WebSocket
client that offers ``v5.channel.k8s.io`` is served by the stream translator; other WebSocket clients reach the
kubelet, whose own refusals (``you must specify at least 1 of stdin, stdout, stderr``, ``container not found``,
an unknown subprotocol's bare 403) come back as plain HTTP (``fakekube.server.channels``).

SPDY/3.1 upgrades (kubectl before 1.30 or with ``KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false``, client-go's SPDY
executor, kubectl's port-forward, plain or tunnelled in a WebSocket) reach the kubelet too: the same refusals as
plain HTTP, then ``httpstream.Handshake`` and the streams (``fakekube.server.spdyexec``, ``spdyportforward``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from fakekube import errors
from fakekube.pods.execution import ExecRegistry
from fakekube.pods.podcontainer import container_running, validate_container
from fakekube.server import portforward, spdyconn, websocket
from fakekube.server.channels import V5, ChannelSession, StreamOptions, WebSocketChannels, negotiate
from fakekube.server.messages import HttpRequest, HttpResponse
from fakekube.server.params import Query
from fakekube.server.spdyexec import PROTOCOLS as SPDY_EXEC_PROTOCOLS
from fakekube.server.spdyexec import SpdyChannels
from fakekube.server.spdyportforward import PROTOCOLS as SPDY_PORTFORWARD_PROTOCOLS
from fakekube.server.spdyportforward import SpdyPortForwardSession, tunnel_protocols
from fakekube.store import Store

STREAMED = ("exec", "attach", "portforward")
TEXT = "text/plain; charset=utf-8"


def handles(group: str, plural: str, subresource: str | None) -> bool:
    return group == "" and plural == "pods" and subresource in STREAMED


def _lookup(store: Store, namespace: str) -> Callable[[str, str], Mapping[str, Any] | None]:
    def lookup(plural: str, name: str) -> Mapping[str, Any] | None:
        return store.stored_object("/" + plural, (namespace, name))  # read-only, no copy: ConfigMaps, Secrets
    return lookup


def _text(code: int, body: str, headers: list[tuple[str, str]] | None = None) -> HttpResponse:
    data = body.encode()
    return HttpResponse(code, [*(headers or []), ("Content-Type", TEXT), ("Content-Length", str(len(data)))],
                        data, close=True)


def connect(store: Store, registry: ExecRegistry, namespace: str, name: str, subresource: str, query: Query,
            request: HttpRequest) -> HttpResponse:
    """The answer to an exec or attach request (errors before the upgrade raise ``ApiError``)."""
    stored = store.stored_object("/pods", (namespace, name))
    if stored is None:
        raise errors.NotFound("pods", "", name)
    pod = copy.deepcopy(stored)  # the session outlives the store's lock; the stored pod may change meanwhile
    # PortForwardLocation names no container
    container = validate_container(query.str("container") or "", pod) if subresource != "portforward" else ""
    node = (pod.get("spec") or {}).get("nodeName")
    if not node:
        raise errors.BadRequest(f"pod {name} does not have a host assigned")
    found = store.stored_object("/nodes", ("", node))
    if found is None:
        # The kubelet connection getter's NotFound names the node with the pods resource (observed on
        # kube-apiserver v1.37.2: ``pods "ghost" not found``).
        raise errors.NotFound("pods", "", node)
    if not (found.get("status") or {}).get("addresses"):
        # nodeutil.GetPreferredNodeAddress: every address type is preferred, so only none at all fails
        raise errors.ApiError(500, "", "no preferred addresses found; known addresses: []")
    headers = request.headers
    if not websocket.is_upgrade_request(headers):
        raise errors.BadRequest("Upgrade request required")
    if subresource == "portforward":
        return _port_forward(store, registry, pod, namespace, query, request)
    command = query.all("command") if subresource == "exec" else []
    lookup = _lookup(store, namespace)

    def start(**streams: Any) -> Any:
        return registry.process(pod, container, command, lookup, now=store.clock.now, attach=subresource == "attach",
                                **streams)

    options = StreamOptions(*(bool(query.bool(k)) for k in ("stdin", "stdout", "stderr", "tty")))
    if options.tty and options.stderr:
        options = StreamOptions(options.stdin, options.stdout, False, True)  # the kubelet drops stderr with a TTY
    spdy = not websocket.is_websocket_request(headers)
    protocol = None if spdy else negotiate(websocket.requested_protocols(headers))
    # Checks the kubelet makes (its refusals reach a v5 client on the error channel after the upgrade).
    failure = None
    if not (options.stdin or options.stdout or options.stderr):
        failure = "you must specify at least 1 of stdin, stdout, stderr"
    elif not container_running(pod, container):
        failure = f'container not found ("{container}")'
    if spdy and failure is None:
        return _spdy_exec(request, options, start, registry)
    if protocol != V5:
        if failure is not None:
            return _text(400 if failure.startswith("you must") else 500, failure)
        if protocol is None:
            return HttpResponse(403, [("Content-Length", "0")], b"", close=True)  # x/net/websocket: bare 403
    bad = websocket.handshake_error(headers)
    if bad is not None:
        code, extra, body = bad
        return _text(code, body.decode(), extra)

    if failure is not None:
        failure = f"unable to upgrade connection: {failure}"

    def session(sock: Any, rfile: Any) -> None:
        link = WebSocketChannels(websocket.WebSocket(sock, rfile), protocol or "")
        ChannelSession(link, protocol or "", options, start, registry, failure).serve()

    return HttpResponse(101, websocket.accept_headers(headers, protocol or ""), upgrade=session, close=True)


def _spdy_handshake(request: HttpRequest, server: list[str], tunnelled: list[str] | None = None) -> str | HttpResponse:
    """The kubelet's protocol negotiation and upgrade check; its refusals are ``http.Error`` text. ``tunnelled``:
    the protocols the apiserver's tunnel asks the kubelet for (its request is a SPDY upgrade by construction)."""
    headers = request.headers
    values = tunnelled if tunnelled is not None else headers.get_all(spdyconn.PROTOCOL_HEADER)
    outcome = spdyconn.handshake(values, server, len(headers))
    if not isinstance(outcome, str):
        code, extra, message = outcome
        return _text(code, message + "\n", [*extra, ("X-Content-Type-Options", "nosniff")])
    if tunnelled is None and not spdyconn.is_spdy_upgrade(headers):
        return _text(400, "unable to upgrade: missing upgrade headers in request\n",
                     [("X-Content-Type-Options", "nosniff")])
    return outcome


def _spdy_exec(request: HttpRequest, options: StreamOptions, start: Callable[..., Any],
               registry: ExecRegistry) -> HttpResponse:
    """Exec or attach over SPDY (``fakekube.server.spdyexec``)."""
    protocol = _spdy_handshake(request, SPDY_EXEC_PROTOCOLS)
    if isinstance(protocol, HttpResponse):
        return protocol

    def session(sock: Any, rfile: Any) -> None:
        link = SpdyChannels(protocol)
        link.attach(spdyconn.SpdyConnection(spdyconn.Transport(sock, rfile), link.on_stream))
        ChannelSession(link, protocol, options, start, registry).serve()

    return HttpResponse(101, spdyconn.upgrade_headers(protocol), upgrade=session, close=True)


def _port_forward(store: Store, registry: ExecRegistry, pod: Mapping[str, Any], namespace: str, query: Query,
                  request: HttpRequest) -> HttpResponse:
    """The kubelet's port-forward: over WebSocket channels (``fakekube.server.portforward``), SPDY, or SPDY
    tunnelled through a WebSocket (``fakekube.server.spdyportforward``)."""
    headers = request.headers
    lookup = _lookup(store, namespace)
    forwards = registry.port_forwards

    def find(port: int) -> Any:
        return forwards.find(pod, port, lambda container: registry.files(pod, container, lookup))

    if not websocket.is_websocket_request(headers):
        protocol = _spdy_handshake(request, SPDY_PORTFORWARD_PROTOCOLS)
        if isinstance(protocol, HttpResponse):
            return protocol

        def spdy_session(sock: Any, rfile: Any) -> None:
            pf = SpdyPortForwardSession(pod, find)
            pf.serve(spdyconn.SpdyConnection(spdyconn.Transport(sock, rfile), pf.on_stream))

        return HttpResponse(101, spdyconn.upgrade_headers(protocol), upgrade=spdy_session, close=True)
    offered = websocket.requested_protocols(headers)
    # wsstream.IsWebSocketRequestWithTunnelingProtocol looks at the first Sec-WebSocket-Protocol header only
    first = [p.strip() for p in (headers.get("Sec-WebSocket-Protocol") or "").split(",")]
    if tunnel_protocols(first):
        return _tunnel(request, tunnel_protocols(offered), pod, find)
    ports = portforward.parse_ports(query.all("ports"))
    if isinstance(ports, str):
        return _text(400, ports)
    protocol = portforward.negotiate(offered)
    if protocol is None:
        return HttpResponse(403, [("Content-Length", "0")], b"", close=True)
    bad = websocket.handshake_error(headers)
    if bad is not None:
        code, extra, body = bad
        return _text(code, body.decode(), extra)

    def session(sock: Any, rfile: Any) -> None:
        portforward.PortForwardSession(websocket.WebSocket(sock, rfile), protocol or "", pod, ports, find).serve()

    return HttpResponse(101, websocket.accept_headers(headers, protocol or ""), upgrade=session, close=True)


def _tunnel(request: HttpRequest, offered: list[str], pod: Mapping[str, Any], find: Callable[[int], Any]) -> HttpResponse:
    """kubectl ≥ 1.31's port-forward: the apiserver's ``TunnelingHandler`` asks the kubelet for a SPDY upgrade with
    the tunnelled protocols, answers the WebSocket with ``SPDY/3.1+`` the kubelet's choice, and carries the SPDY
    bytes in binary messages (a kubelet refusal reaches the client as the kubelet wrote it)."""
    protocol = _spdy_handshake(request, SPDY_PORTFORWARD_PROTOCOLS, offered)
    if isinstance(protocol, HttpResponse):
        return protocol
    headers = request.headers
    bad = websocket.handshake_error(headers)
    if bad is not None:
        code, extra, body = bad
        return _text(code, body.decode(), extra)

    def session(sock: Any, rfile: Any) -> None:
        pf = SpdyPortForwardSession(pod, find)
        transport = spdyconn.TunnelTransport(websocket.WebSocket(sock, rfile))
        pf.serve(spdyconn.SpdyConnection(transport, pf.on_stream))

    subprotocol = "SPDY/3.1+" + protocol
    return HttpResponse(101, websocket.accept_headers(headers, subprotocol), upgrade=session, close=True)

