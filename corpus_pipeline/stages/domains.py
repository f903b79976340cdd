"""A document's domain: the first `domains.rules` entry matching its URL's host and path, else the
default domain of its source. Both source stages (extract, ingest) call `DomainRules.domain_of`."""

from __future__ import annotations

import fnmatch
import re
from urllib.parse import urlsplit

from corpus_pipeline.config import DomainsConfig


class DomainRules:
    """The compiled rules of one `domains:` section (built once per stage, not per document)."""

    def __init__(self, config: DomainsConfig | None = None):
        rules = (config or DomainsConfig()).rules
        # fnmatch's own cache holds 32,768 patterns, but translating once keeps the per-URL cost
        # to two regex calls per rule tried.
        self._rules = [
            (re.compile(fnmatch.translate(r.host.lower())), re.compile(r.path) if r.path else None, r.domain)
            for r in rules
        ]

    def __bool__(self) -> bool:
        return bool(self._rules)

    def domain_of(self, url: str | None, default: str) -> str:
        if not self._rules or not url:
            return default
        try:
            parts = urlsplit(url)
        except ValueError:  # an unbalanced "[" in the host: no rule can match it
            return default
        host = (parts.hostname or "").rstrip(".")
        path = parts.path or "/"
        for host_pattern, path_pattern, domain in self._rules:
            if host_pattern.match(host) and (path_pattern is None or path_pattern.search(path)):
                return domain
        return default

    def domains_of(self, urls: list[str | None], default: str) -> list[str]:
        return [self.domain_of(url, default) for url in urls]
