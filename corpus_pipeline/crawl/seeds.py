"""Seed files: one URL a line, `#` comments and blank lines allowed; bad lines reported by number.

A seed whose path ends in `.xml` is read as a sitemap: its `<loc>` URLs become seeds when fetched.
Seeds are grouped by registered domain so that one task, and only one, crawls each host; that is
what keeps per-host politeness true across a cluster.
"""

from __future__ import annotations

import ipaddress
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from corpus_pipeline.urls import canonical_url

ALLOWED_SCHEMES = ("http", "https")
MAX_AUTO_TASKS = 64


@dataclass(frozen=True)
class SeedError:
    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}: {self.text!r}"


@dataclass
class Seeds:
    urls: list[str] = field(default_factory=list)
    errors: list[SeedError] = field(default_factory=list)


def seed_problem(url: str) -> str | None:
    """Why `url` cannot be crawled, or None."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a non-numeric or out-of-range port
    except ValueError as error:
        return f"unparseable URL ({error})"
    if parts.scheme.lower() not in ALLOWED_SCHEMES:
        return f"unsupported scheme {parts.scheme or '(none)'!r}"
    if not parts.hostname:
        return "no host"
    if any(c.isspace() for c in url):
        return "whitespace inside the URL"
    return None


def parse_seeds(text: str) -> Seeds:
    seeds = Seeds()
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()  # a fragment would be dropped by canonical_url anyway
        if not line:
            continue
        problem = seed_problem(line)
        if problem:
            seeds.errors.append(SeedError(number, line, problem))
            continue
        canonical = canonical_url(line)
        if canonical not in seen:
            seen.add(canonical)
            seeds.urls.append(canonical)
    return seeds


def read_seeds(path: str | Path) -> Seeds:
    return parse_seeds(Path(path).read_text(encoding="utf-8"))


def registered_domain(host: str) -> str:
    """The registrable domain: `news.bbc.co.uk` -> `bbc.co.uk`, from tldextract's bundled public
    suffix snapshot (never fetched: the crawl may run offline). IP literals are their own domain;
    names under no known suffix (`.test`, `.internal`) fall back to their last two labels."""
    host = host.lower().rstrip(".")
    try:
        ipaddress.ip_address(host.strip("[]"))
        return host
    except ValueError:
        pass
    extracted = _extractor()(host)
    return extracted.top_domain_under_public_suffix or ".".join(host.split(".")[-2:])


_EXTRACTOR = None


def _extractor():
    global _EXTRACTOR
    if _EXTRACTOR is None:
        import tldextract

        _EXTRACTOR = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)
    return _EXTRACTOR


def url_domain(url: str) -> str:
    return registered_domain(urlsplit(url).hostname or "")


def partition_by_domain(urls: list[str], tasks: int) -> list[list[str]]:
    """Seeds in groups; all seeds of one registered domain land in the same group.

    The group of a domain is a stable hash (crc32) of it, so reruns put every host in the same task;
    `tasks` 0 means one group per domain, at most MAX_AUTO_TASKS. Empty groups are left out.
    """
    domains = sorted({url_domain(u) for u in urls})
    count = tasks or min(len(domains), MAX_AUTO_TASKS) or 1
    groups: list[list[str]] = [[] for _ in range(count)]
    for url in urls:
        groups[zlib.crc32(url_domain(url).encode()) % count].append(url)
    return [group for group in groups if group]
