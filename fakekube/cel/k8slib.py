"""Kubernetes' URL, IP, CIDR and quantity CEL libraries, declared for cel-expr-python.

After k8s.io/apiserver ``pkg/cel/library/urls.go``, ``ip.go``, ``cidr.go`` and ``quantity.go`` (v0.37.2).
cel-expr-python cannot carry an opaque value through an evaluation, so each of these types is a container of
a type no CRD value has (JSON object keys are strings): a URL is ``map(uint, string)``, an IP
``map(int, string)`` (one entry, key 0, holding the value's text), a quantity ``map(uint, bytes)`` (its exact
value, ``b"num/den"``), a CIDR
``list(list(string))`` (``[[text]]``: cel-cpp picks an implementation by the arguments' kinds, so
``string(ip)`` and ``string(cidr)`` need two). The type checker so tells them apart from each other and from the data; only a type error that
names one prints that map type where cel-go prints ``kubernetes.URL`` etc.

URLs are parsed less strictly than Go's ``url.ParseRequestURI`` (a scheme or an absolute path, no control
characters, a numeric port); IPs and CIDRs as Go's ``net/netip`` for what Python's ``ipaddress`` shares with it.
"""

from __future__ import annotations

import ipaddress
import re
from fractions import Fraction
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cel_expr_python import cel

from fakekube import quantity as quantities
from fakekube.cel import semverlib
from fakekube.cel.library import CelError

T = cel.Type
URL, IP, CIDR, QUANTITY = (T.Map(T.UINT, T.STRING), T.Map(T.INT, T.STRING), T.List(T.List(T.STRING)),
                           T.Map(T.UINT, T.BYTES))
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_INT64 = 2**63


# -------------------------------------------------------------------------------------------- URLs

def _url_problem(text: str) -> str | None:
    if _CONTROL.search(text):
        return f'parse "{text}": net/url: invalid control character in URL'
    if not text.startswith("/") and not _SCHEME.match(text):
        return f'parse "{text}": invalid URI for request'
    rest = text.split(":", 1)[1] if _SCHEME.match(text) else text
    if rest.startswith("//"):
        host = rest[2:].split("/", 1)[0].split("?", 1)[0].rsplit("@", 1)[-1]
        port = host.rsplit("]", 1)[-1].partition(":")[2] if ":" in host.rsplit("]", 1)[-1] else ""
        if port and not port.isdigit():
            return f'parse "{text}": invalid port ":{port}" after host'
    return None


def url_problem(text: str) -> str | None:
    """Why ``url.ParseRequestURI`` refuses ``text`` (its error text), or None."""
    return _url_problem(text)


def _url(text: str) -> dict[int, str]:
    problem = _url_problem(text)
    if problem is not None:
        raise CelError(f"URL parse error during conversion from string: {problem}")
    return {0: text}


def _host(u: dict[Any, str]) -> str:
    return urlsplit(u[0]).netloc.rsplit("@", 1)[-1]


def _hostname(u: dict[Any, str]) -> str:
    host = _host(u)
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.split(":", 1)[0]


def _port(u: dict[Any, str]) -> str:
    host = _host(u)
    tail = host.rsplit("]", 1)[-1]
    return tail.partition(":")[2]


def _query(u: dict[Any, str]) -> dict[str, list[str]]:
    return parse_qs(urlsplit(u[0]).query, keep_blank_values=True)


# ---------------------------------------------------------------------------------------- IPs, CIDRs

def _parse_ip(text: str) -> Any:
    if "%" in text:
        raise CelError(f'IP address "{text}" with zone value is not allowed')
    try:
        addr = ipaddress.ip_address(text)
    except ValueError:
        raise CelError(f'IP Address "{text}" parse error during conversion from string: ParseAddr("{text}"): '
                       "unable to parse IP") from None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise CelError(f'IPv4-mapped IPv6 address "{text}" is not allowed')
    return addr


def _ip(text: str) -> dict[int, str]:
    return {0: str(_parse_ip(text))}


def _is_ip(text: str) -> bool:
    try:
        _parse_ip(text)
    except CelError:
        return False
    return True


def _addr(value: dict[Any, str]) -> Any:
    return ipaddress.ip_address(value[0])


def _link_local_multicast(value: dict[Any, str]) -> bool:
    addr = _addr(value)
    if addr.version == 4:
        return addr in ipaddress.ip_network("224.0.0.0/24")
    return (int(addr) >> 112) & 0xFF0F == 0xFF02


def _global_unicast(value: dict[Any, str]) -> bool:
    # Go's netip.Addr.IsGlobalUnicast: anything but unspecified, loopback, multicast, link-local unicast and the
    # IPv4 broadcast address (private addresses are global unicast).
    addr = _addr(value)
    if addr.is_unspecified or addr.is_loopback or addr.is_multicast or addr.is_link_local:
        return False
    return not (addr.version == 4 and str(addr) == "255.255.255.255")


def _parse_cidr(text: str) -> tuple[Any, int]:
    addr_text, slash, bits = text.partition("/")
    if not slash or not bits.isdigit() or "%" in addr_text:
        raise CelError(f'network address parse error during conversion from string: network address parse error '
                       f'during conversion from string: netip.ParsePrefix("{text}"): no \'/\'' if not slash else
                       f"network address parse error during conversion from string: network address parse error "
                       f'during conversion from string: netip.ParsePrefix("{text}"): bad bits after slash: '
                       f'"{bits}"')
    try:
        addr = ipaddress.ip_address(addr_text)
    except ValueError:
        raise CelError(f"network address parse error during conversion from string: network address parse error "
                       f'during conversion from string: netip.ParsePrefix("{text}"): ParseAddr("{addr_text}"): '
                       "unable to parse IP") from None
    if int(bits) > addr.max_prefixlen:
        raise CelError(f"network address parse error during conversion from string: network address parse error "
                       f'during conversion from string: netip.ParsePrefix("{text}"): prefix length out of range')
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        raise CelError(f'network address parse error during conversion from string: IPv4-mapped IPv6 address "{text}" '
                       "is not allowed")
    return addr, int(bits)


def _cidr(text: str) -> list[list[str]]:
    addr, bits = _parse_cidr(text)
    return [[f"{addr}/{bits}"]]


def _is_cidr(text: str) -> bool:
    try:
        _parse_cidr(text)
    except CelError:
        return False
    return True


def _network(value: list[list[str]]) -> Any:
    return ipaddress.ip_network(value[0][0], strict=False)


def _contains_ip(value: list[list[str]], other: Any) -> bool:
    addr = _parse_ip(other) if isinstance(other, str) else _addr(other)
    net = _network(value)
    return addr.version == net.version and addr in net


def _contains_cidr(value: list[list[str]], other: Any) -> bool:
    text = other if isinstance(other, str) else other[0][0]
    addr, bits = _parse_cidr(text)
    net = _network(value)
    return addr.version == net.version and net.prefixlen <= bits and addr in net


def _cidr_ip(value: list[list[str]]) -> dict[int, str]:
    return {0: value[0][0].split("/", 1)[0]}


def _prefix_length(value: list[list[str]]) -> int:
    return int(value[0][0].split("/", 1)[1])


def _masked(value: list[list[str]]) -> list[list[str]]:
    return [[str(_network(value))]]


# ------------------------------------------------------------------------------------------ quantities

def _q(value: dict[Any, bytes]) -> Fraction:
    return Fraction(value[0].decode())


def _stored(number: Fraction) -> dict[int, bytes]:
    # The exact value, so that equal quantities are equal maps whatever their spelling (1Gi, 1073741824).
    return {0: f"{number.numerator}/{number.denominator}".encode()}


def _quantity(text: str) -> dict[int, bytes]:
    try:
        number, _ = quantities.parse(text)
    except quantities.QuantityError as exc:
        raise CelError(str(exc)) from None
    return _stored(number)


def _is_quantity(text: str) -> bool:
    try:
        quantities.parse(text)
    except quantities.QuantityError:
        return False
    return True


def _sign(value: dict[Any, bytes]) -> int:
    number = _q(value)
    return (number > 0) - (number < 0)


def _compare(a: dict[Any, bytes], b: dict[Any, bytes]) -> int:
    x, y = _q(a), _q(b)
    return (x > y) - (x < y)


def _as_integer(value: dict[Any, bytes]) -> int:
    number = _q(value)
    if number.denominator != 1 or not -_INT64 <= number < _INT64:
        raise CelError("cannot convert value to integer")
    return int(number)


def _is_integer(value: dict[Any, bytes]) -> bool:
    number = _q(value)
    return number.denominator == 1 and -_INT64 <= number < _INT64


def _arith(sign: int) -> Any:
    def run(a: dict[Any, bytes], b: Any) -> dict[int, bytes]:
        y = Fraction(b) if isinstance(b, int) else _q(b)
        return _stored(_q(a) + sign * y)
    return run


# --------------------------------------------------------------------------------------- declarations

def _member(name: str, overload: str, result: Any, params: list[Any], impl: Any = None) -> Any:
    if impl is None:
        return cel.Overload(overload, result, params, is_member=True)
    return cel.Overload(overload, result, params, is_member=True, impl=impl)


def _global(overload: str, result: Any, params: list[Any], impl: Any = None) -> Any:
    if impl is None:  # declared for the checker; another overload's implementation serves it
        return cel.Overload(overload, result, params)
    return cel.Overload(overload, result, params, impl=impl)


def extension() -> Any:
    """``string(ip)`` and ``string(cidr)``: ``string`` is the standard library's, so these join it through an
    extension."""
    return cel.CelExtension("kubernetes.types", [cel.FunctionDecl("string", [
        _global("ip_to_string", T.STRING, [IP], lambda v: v[0]),
        _global("cidr_to_string", T.STRING, [CIDR], lambda v: v[0][0])])])


def functions() -> list[Any]:
    """The four libraries' other functions and fakekube.cel.semverlib's, for ``cel.NewEnv(functions=...)``
    (cel-expr-python takes one declaration per function: ``isGreaterThan`` serves quantities and versions)."""
    more = semverlib.overloads()

    def fn(name: str, overloads: list[Any]) -> Any:
        return cel.FunctionDecl(name, overloads + more.pop(name, []))

    return [
        fn("url", [_global("string_to_url", URL, [T.STRING], _url)]),
        fn("isURL", [_global("is_url_string", T.BOOL, [T.STRING], lambda s: _url_problem(s) is None)]),
        fn("getScheme", [_member("getScheme", "url_get_scheme", T.STRING, [URL],
                                 lambda u: urlsplit(u[0]).scheme if _SCHEME.match(u[0]) else "")]),
        fn("getHost", [_member("getHost", "url_get_host", T.STRING, [URL], _host)]),
        fn("getHostname", [_member("getHostname", "url_get_hostname", T.STRING, [URL], _hostname)]),
        fn("getPort", [_member("getPort", "url_get_port", T.STRING, [URL], _port)]),
        fn("getEscapedPath", [_member("getEscapedPath", "url_get_escaped_path", T.STRING, [URL],
                                      lambda u: urlsplit(u[0]).path)]),
        fn("getQuery", [_member("getQuery", "url_get_query", T.Map(T.STRING, T.List(T.STRING)), [URL], _query)]),
        fn("ip", [_global("string_to_ip", IP, [T.STRING], _ip),
                  _member("ip", "cidr_ip", IP, [CIDR], _cidr_ip)]),
        fn("isIP", [_global("is_ip", T.BOOL, [T.STRING], _is_ip)]),
        fn("ip.isCanonical", [_global("ip_is_canonical", T.BOOL, [T.STRING],
                                      lambda s: str(_parse_ip(s)) == s)]),
        fn("family", [_member("family", "ip_family", T.INT, [IP], lambda v: _addr(v).version)]),
        fn("isUnspecified", [_member("isUnspecified", "ip_is_unspecified", T.BOOL, [IP],
                                     lambda v: _addr(v).is_unspecified)]),
        fn("isLoopback", [_member("isLoopback", "ip_is_loopback", T.BOOL, [IP], lambda v: _addr(v).is_loopback)]),
        fn("isLinkLocalMulticast", [_member("isLinkLocalMulticast", "ip_is_link_local_multicast", T.BOOL, [IP],
                                            _link_local_multicast)]),
        fn("isLinkLocalUnicast", [_member("isLinkLocalUnicast", "ip_is_link_local_unicast", T.BOOL, [IP],
                                          lambda v: _addr(v).is_link_local)]),
        fn("isGlobalUnicast", [_member("isGlobalUnicast", "ip_is_global_unicast", T.BOOL, [IP],
                                       _global_unicast)]),
        fn("cidr", [_global("string_to_cidr", CIDR, [T.STRING], _cidr)]),
        fn("isCIDR", [_global("is_cidr", T.BOOL, [T.STRING], _is_cidr)]),
        fn("containsIP", [_member("containsIP", "cidr_contains_ip_string", T.BOOL, [CIDR, T.STRING], _contains_ip),
                          _member("containsIP", "cidr_contains_ip_ip", T.BOOL, [CIDR, IP], _contains_ip)]),
        fn("containsCIDR", [_member("containsCIDR", "cidr_contains_cidr_string", T.BOOL, [CIDR, T.STRING],
                                    _contains_cidr),
                            _member("containsCIDR", "cidr_contains_cidr", T.BOOL, [CIDR, CIDR], _contains_cidr)]),
        fn("prefixLength", [_member("prefixLength", "cidr_prefix_length", T.INT, [CIDR], _prefix_length)]),
        fn("masked", [_member("masked", "cidr_masked", CIDR, [CIDR], _masked)]),
        fn("quantity", [_global("string_to_quantity", QUANTITY, [T.STRING], _quantity)]),
        fn("isQuantity", [_global("is_quantity_string", T.BOOL, [T.STRING], _is_quantity)]),
        fn("sign", [_member("sign", "quantity_sign", T.INT, [QUANTITY], _sign)]),
        fn("isGreaterThan", [_member("isGreaterThan", "quantity_is_greater_than", T.BOOL, [QUANTITY, QUANTITY],
                                     lambda a, b: _compare(a, b) > 0)]),
        fn("isLessThan", [_member("isLessThan", "quantity_is_less_than", T.BOOL, [QUANTITY, QUANTITY],
                                  lambda a, b: _compare(a, b) < 0)]),
        fn("compareTo", [_member("compareTo", "quantity_compare_to", T.INT, [QUANTITY, QUANTITY], _compare)]),
        fn("asApproximateFloat", [_member("asApproximateFloat", "quantity_get_float", T.DOUBLE, [QUANTITY],
                                          lambda v: float(_q(v)))]),
        fn("asInteger", [_member("asInteger", "quantity_get_int", T.INT, [QUANTITY], _as_integer)]),
        fn("isInteger", [_member("isInteger", "quantity_is_integer", T.BOOL, [QUANTITY], _is_integer)]),
        fn("add", [_member("add", "quantity_add", QUANTITY, [QUANTITY, QUANTITY], _arith(1)),
                   _member("add", "quantity_add_int", QUANTITY, [QUANTITY, T.INT], _arith(1))]),
        fn("sub", [_member("sub", "quantity_sub", QUANTITY, [QUANTITY, QUANTITY], _arith(-1)),
                   _member("sub", "quantity_sub_int", QUANTITY, [QUANTITY, T.INT], _arith(-1))]),
    ] + [cel.FunctionDecl(name, overloads) for name, overloads in more.items()]
