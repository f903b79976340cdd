"""The address rule: no request to a private, loopback, link-local, multicast or reserved address.

The rule is applied to the *resolved* IP of every request, redirects included (a public name can
resolve to 169.254.169.254, and a public page can redirect to http://10.0.0.1/). An allowlist of
CIDRs or host names lifts it; the demo and the tests allow 127.0.0.1.

`StaticResolver` resolves names from a fixed table only (CrawlConfig.static_hosts): an air-gapped
crawl uses it, and the tests use it to map test names to chosen addresses without any DNS traffic.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from scrapy.exceptions import IgnoreRequest
from twisted.internet import defer
from twisted.internet.error import DNSLookupError
from twisted.internet.interfaces import IResolverSimple
from zope.interface import implementer


class RefusedAddress(IgnoreRequest):
    """The target resolved to an address the safety rule forbids."""


class UnsupportedScheme(IgnoreRequest):
    """Only http and https are ever fetched (no file:, ftp:, data:, s3: ...)."""


def forbidden_kind(ip: str) -> str | None:
    """Which forbidden class `ip` falls in, or None for a public unicast address."""
    address = ipaddress.ip_address(ip)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    # Most specific first: Python counts link-local and loopback ranges as private too.
    for kind in ("loopback", "link_local", "multicast", "unspecified", "reserved", "private"):
        if getattr(address, f"is_{kind}"):
            return kind
    if not address.is_global:  # shared (100.64/10), documentation and benchmark ranges
        return "not_global"
    return None


@dataclass(frozen=True)
class AddressPolicy:
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    hosts: frozenset[str] = frozenset()

    @classmethod
    def from_allowlist(cls, entries: list[str]) -> AddressPolicy:
        networks, hosts = [], set()
        for entry in entries:
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hosts.add(entry.lower().rstrip("."))
        return cls(tuple(networks), frozenset(hosts))

    def refusal(self, host: str, ip: str) -> str | None:
        """None when `host` at `ip` may be fetched, else the forbidden address class."""
        kind = forbidden_kind(ip)
        if kind is None or host.lower().rstrip(".") in self.hosts:
            return None
        address = ipaddress.ip_address(ip)
        if any(address in network for network in self.networks):
            return None
        return kind


def _is_ip_literal(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        return False


@implementer(IResolverSimple)
class StaticResolver:
    """A scrapy TWISTED_DNS_RESOLVER resolving only CRAWL_STATIC_HOSTS names (and IP literals)."""

    def __init__(self, table: dict[str, str]):
        self.table = {name.lower().rstrip("."): ip for name, ip in table.items()}

    @classmethod
    def from_crawler(cls, crawler, reactor) -> StaticResolver:
        instance = cls(crawler.settings.getdict("CRAWL_STATIC_HOSTS"))
        instance.reactor = reactor
        return instance

    def install_on_reactor(self) -> None:
        self.reactor.installResolver(self)

    def getHostByName(self, name: str, timeout=()) -> defer.Deferred:  # noqa: N802 - Twisted's interface
        if _is_ip_literal(name):
            return defer.succeed(name.strip("[]"))
        ip = self.table.get(name.lower().rstrip("."))
        if ip is None:
            return defer.fail(DNSLookupError(f"{name} is not in the static host table"))
        return defer.succeed(ip)
