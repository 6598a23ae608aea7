"""Kubernetes' URL, IP, CIDR and quantity CEL libraries (fakekube.cel.k8slib): the expressions and expected
values of k8s.io/apiserver v0.37.2 pkg/cel/library/ip_test.go, cidr_test.go, quantity_test.go, and urls.go's
documented examples."""

from __future__ import annotations

from typing import Any

import pytest
from cel_expr_python import cel

from fakekube.cel.env import environment

T = cel.Type
ERROR = object()


def _eval(expression: str) -> Any:
    result = environment({}).compile(expression).eval()
    return ERROR if result.type() == T.ERROR else result.plain_value()


@pytest.mark.parametrize(("expression", "expected"), [
    ('isIP("192.168.0.1")', True), ('isIP("192.168.0.1.0")', False), ('ip("192.168.0.1.0")', ERROR),
    ('ip.isCanonical("127.0.0.1")', True), ('ip.isCanonical("127.0.0.1.0")', ERROR),
    ('ip("192.168.0.1").family()', 4), ('ip("0.0.0.0").isUnspecified()', True),
    ('ip("127.0.0.1").isUnspecified()', False), ('ip("127.0.0.1").isLoopback()', True),
    ('ip("1.2.3.4").isLoopback()', False), ('ip("224.0.0.1").isLinkLocalMulticast()', True),
    ('ip("224.0.1.1").isLinkLocalMulticast()', False), ('ip("169.254.169.254").isLinkLocalUnicast()', True),
    ('ip("192.168.0.1").isLinkLocalUnicast()', False), ('ip("192.168.0.1").isGlobalUnicast()', True),
    ('ip("255.255.255.255").isGlobalUnicast()', False), ('isIP("2001:db8::68")', True),
    ('isIP("2001:db8:::68")', False), ('ip.isCanonical("2001:db8::68")', True),
    ('ip.isCanonical("2001:DB8::68")', False), ('ip("2001:db8::68").family()', 6),
    ('ip("::").isUnspecified()', True), ('ip("::1").isLoopback()', True),
    ('ip("ff02::1").isLinkLocalMulticast()', True), ('ip("fd00::1").isLinkLocalMulticast()', False),
    ('ip("fe80::1").isLinkLocalUnicast()', True), ('ip("fd80::1").isLinkLocalUnicast()', False),
    ('ip("2001:db8::abcd").isGlobalUnicast()', True), ('ip("ff00::1").isGlobalUnicast()', False),
    ('string(ip("192.168.0.1"))', "192.168.0.1"), ('isIP("::ffff:1.2.3.4")', False),
    ('cidr("192.168.0.0/")', ERROR),
    ('cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', True),
    ('cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', False),
    ('cidr("192.168.0.0/24").containsIP("192.168.0.1")', True),
    ('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', True),
    ('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', True),
    ('cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', False),
    ('cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))', False),
    ('cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', True),
    ('cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', True),
    ('cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', True),
    ('cidr("192.168.0.0/24").prefixLength()', 24), ('string(cidr("192.168.0.1/24").masked())', "192.168.0.0/24"),
    ('cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', True),
    ('cidr("2001:db8::/32").containsIP("2001:dc8::1")', False),
    ('quantity("10Mo")', ERROR), ('isQuantity("20")', True), ('isQuantity("20Mi")', True),
    ('isQuantity("20Mo")', False), ('quantity("200M") == quantity("0.2G")', True),
    ('quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M")', True),
    ('quantity("200M") == quantity("0.3G")', False), ('quantity("1Gi") == quantity("1073741824")', True),
    ('quantity("50M").isLessThan(quantity("50Mi"))', True), ('quantity("100M").isLessThan(quantity("50M"))', False),
    ('quantity("50Mi").isGreaterThan(quantity("50M"))', True), ('quantity("200M").compareTo(quantity("0.2G"))', 0),
    ('quantity("50k").asInteger()', 50000), ('quantity("9999999999999999999999999999999999999G").asInteger()', ERROR),
    ('quantity("50k").isInteger()', True), ('quantity("50.5").isInteger()', False),
    ('quantity("50.703k").asApproximateFloat()', 50703.0), ('quantity("-50k").sign()', -1),
    ('quantity("50k").add(quantity("20")) == quantity("50.02k")', True),
    ('quantity("50k").add(20) == quantity("50020")', True), ('quantity("50k").sub(quantity("20")) == quantity("49980")', True),
    ('isURL("https://kubernetes.io/docs/reference/")', True), ('isURL("/path")', True), ('isURL("example.com")', False),
    ('url("https://user@example.com:80/path?query=val#fragment").getHost()', "example.com:80"),
    ('url("https://[::1]:80/").getHostname()', "::1"), ('url("https://example.com:80/").getPort()', "80"),
    ('url("https://example.com/path").getScheme()', "https"),
    ('url("https://example.com/?k=a&k=b&j=c").getQuery()', {"k": ["a", "b"], "j": ["c"]}),
])
def test_library(expression: str, expected: Any) -> None:
    assert _eval(expression) == expected


def test_the_types_are_told_apart_when_checking() -> None:
    with pytest.raises(RuntimeError, match="found no matching overload for 'isIP'"):
        environment({}).compile('isIP(cidr("192.168.0.0/24"))')
