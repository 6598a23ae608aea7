"""Per-store Service allocators: ClusterIPs from the service CIDR, NodePorts from the node-port range.

Both follow kubernetes ``pkg/registry/core/service/ipallocator`` and ``portallocator`` (sources in
docs/semantics.md): a specific value must be in range and free; a dynamic one is taken from the upper band of
the range first (the lower band, ``min(max(16, size/16), 256)`` addresses or ``min(max(16, size/32), 128)``
ports, is kept for static assignments — ServiceIPStaticSubrange, ServiceNodePortStaticSubrange), starting at a
random offset and scanning upward. The random stream is seeded from the store's seed, so the same seed hands
out the same addresses. The network and broadcast addresses are never handed out.
"""

from __future__ import annotations

import contextlib
import ipaddress
import random

DEFAULT_SERVICE_CIDR = "10.96.0.0/12"  # kubeadm's and kind's --service-cluster-ip-range
DEFAULT_NODE_PORT_RANGE = (30000, 32767)  # kube-apiserver --service-node-port-range


class AllocationError(Exception):
    """The allocator's own error text (``provided IP is already allocated``), wrapped by the caller."""


class _Band:
    """Offsets ``first..last`` of a range, with a static lower band that dynamic allocation prefers to skip."""

    def __init__(self, first: int, last: int, static: int, rng: random.Random) -> None:
        self.first, self.last, self.static = first, last, static
        self.used: set[int] = set()
        self.rng = rng

    def take(self, offset: int) -> None:
        self.used.add(offset)

    def release(self, offset: int) -> None:
        self.used.discard(offset)

    def next_free(self) -> int | None:
        # The upper band from a random start, wrapping inside it; then the lower band from its start.
        upper_first = min(self.first + self.static, self.last)
        size = self.last - upper_first + 1
        if size > 0:
            start = self.rng.randrange(size)
            for i in range(size):
                offset = upper_first + (start + i) % size
                if offset not in self.used:
                    return offset
        for offset in range(self.first, upper_first):
            if offset not in self.used:
                return offset
        return None


class ClusterIPAllocator:
    def __init__(self, cidr: str, rng: random.Random) -> None:
        self.network = ipaddress.ip_network(cidr)
        size = self.network.num_addresses
        # The network address and (IPv4) the broadcast address are reserved.
        last = size - 2 if self.network.version == 4 else size - 1
        self._band = _Band(1, last, min(max(16, size // 16), 256), rng)
        self.cidr = cidr

    @property
    def family(self) -> str:
        return "IPv4" if self.network.version == 4 else "IPv6"

    def allocate(self, ip: str) -> None:
        offset = self._offset(ip)
        if offset in self._band.used:
            raise AllocationError("provided IP is already allocated")
        self._band.take(offset)

    def allocate_next(self) -> str:
        offset = self._band.next_free()
        if offset is None:
            raise AllocationError("range is full")
        self._band.take(offset)
        return str(self.network.network_address + offset)

    def release(self, ip: str) -> None:
        with contextlib.suppress(AllocationError):
            self._band.release(self._offset(ip))

    def _offset(self, ip: str) -> int:
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            raise AllocationError(f"the provided IP ({ip}) is not in the valid range. The range of valid IPs "
                                  f"is {self.cidr}") from None
        offset = int(address) - int(self.network.network_address)
        if address not in self.network or not self._band.first <= offset <= self._band.last:
            raise AllocationError(f"the provided IP ({ip}) is not in the valid range. The range of valid IPs "
                                  f"is {self.cidr}")
        return offset

    def in_use(self) -> int:
        return len(self._band.used)


class NodePortAllocator:
    def __init__(self, first: int, last: int, rng: random.Random) -> None:
        self.first, self.last = first, last
        size = last - first + 1
        self._band = _Band(first, last, min(max(16, size // 32), 128), rng)

    def allocate(self, port: int) -> None:
        if not self.first <= port <= self.last:
            raise AllocationError(f"provided port is not in the valid range. The range of valid ports is "
                                  f"{self.first}-{self.last}")
        if port in self._band.used:
            raise AllocationError("provided port is already allocated")
        self._band.take(port)

    def allocate_next(self) -> int:
        port = self._band.next_free()
        if port is None:
            raise AllocationError("range is full")
        self._band.take(port)
        return port

    def release(self, port: int) -> None:
        self._band.release(port)

    def in_use(self) -> int:
        return len(self._band.used)


class ServiceAllocators:
    """The allocators one store owns; seeded from the store's seed (``None`` seeds from the OS)."""

    def __init__(self, seed: int | None = None, *, service_cidr: str = DEFAULT_SERVICE_CIDR,
                 node_port_range: tuple[int, int] = DEFAULT_NODE_PORT_RANGE) -> None:
        self.cluster_ips = ClusterIPAllocator(service_cidr, random.Random(f"{seed}/cluster-ips"))
        self.node_ports = NodePortAllocator(*node_port_range, random.Random(f"{seed}/node-ports"))
