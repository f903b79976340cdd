"""Crawl counters as a StageStats: every URL the crawl attempts ends `kept` or `dropped[reason]`.

kept: a 2xx page written to the WARC, or a page the server reported unchanged (a revisit record).
dropped reasons: robots_blocked, refused_by_safety, unsupported_scheme, content_type, http_4xx,
http_5xx (after retries), redirect_loop, too_many_redirects, duplicate_redirect, and one reason
per error kind (timeout, connection_refused, connection_lost, data_loss, dns_error,
decompression_too_large, ...). `extra` holds counts by status code, by domain, bytes per domain,
pages/s per domain, the truncated / unchanged / sitemap counts and the task's CPU milliseconds
(`crawl.cpu_ms`: beside `seconds` it tells a CPU-bound crawl from one waiting on the network).
"""

from __future__ import annotations

import time
from collections import Counter

from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadFailedError,
    DownloadTimeoutError,
    IgnoreRequest,
    ResponseDataLossError,
    UnsupportedURLSchemeError,
)
from twisted.internet import error as net_error
from twisted.web._newclient import ResponseFailed
from twisted.web.http import PotentialDataLoss, _DataLoss

from corpus_pipeline.crawl.middlewares import DuplicateRedirect, RedirectLoop
from corpus_pipeline.crawl.safety import RefusedAddress, UnsupportedScheme
from corpus_pipeline.stats import StageStats

STAGE = "crawl"

_BY_TYPE = (
    (RefusedAddress, "refused_by_safety"),
    (UnsupportedScheme, "unsupported_scheme"),
    (RedirectLoop, "redirect_loop"),
    (DuplicateRedirect, "duplicate_redirect"),
    (UnsupportedURLSchemeError, "unsupported_scheme"),
    (CannotResolveHostError, "dns_error"),
    (DownloadTimeoutError, "timeout"),
    (DownloadConnectionRefusedError, "connection_refused"),
    (ResponseDataLossError, "data_loss"),
    (DownloadCancelledError, "cancelled"),
    (DownloadFailedError, "connection_lost"),  # reset or closed before a complete response
    (net_error.DNSLookupError, "dns_error"),
    (net_error.TimeoutError, "timeout"),
    (net_error.ConnectionRefusedError, "connection_refused"),
    (net_error.ConnectError, "connect_error"),
    (net_error.ConnectionLost, "connection_lost"),
    (net_error.ConnectionDone, "connection_lost"),
)


def failure_reason(value: BaseException) -> str:
    """The dropped reason for an exception that ended a request."""
    for kind, reason in _BY_TYPE:
        if isinstance(value, kind):
            return reason
    if isinstance(value, ResponseFailed):
        reasons = [r.value for r in value.reasons]
        if any(isinstance(r, (_DataLoss, PotentialDataLoss)) for r in reasons):
            return "data_loss"
        return "connection_lost"
    if isinstance(value, IgnoreRequest):
        message = str(value)
        if "robots.txt" in message:
            return "robots_blocked"
        if "max redirections" in message:
            return "too_many_redirects"
        if "DOWNLOAD_MAXSIZE" in message:
            return "decompression_too_large"
        return "ignored"
    name = type(value).__name__
    return "timeout" if "Timeout" in name else f"error_{name}"


class CrawlCounters:
    def __init__(self, task_id: int):
        self.stats = StageStats(STAGE, tasks=1)
        self.task_id = task_id
        self.started = time.monotonic()
        self.cpu_started = time.process_time()
        self.last_outcome: dict[str, float] = {}

    def _outcome(self, domain: str, nbytes: int) -> None:
        self.stats.count_in(nbytes)
        self.stats.count("pages_by_domain", domain)
        self.last_outcome[domain] = time.monotonic()

    def kept(self, domain: str, status: int, nbytes: int) -> None:
        self._outcome(domain, nbytes)
        self.stats.count_kept(nbytes)
        self.stats.count("status", str(status))
        self.stats.count("bytes_by_domain", domain, nbytes)

    def dropped(self, domain: str, reason: str, status: int | None = None) -> None:
        self._outcome(domain, 0)
        self.stats.count_dropped(reason)
        if status is not None:
            self.stats.count("status", str(status))

    def note(self, key: str, n: int = 1) -> None:
        self.stats.count("crawl", key, n)

    def finish(self) -> StageStats:
        elapsed = time.monotonic() - self.started
        self.stats.seconds = self.stats.task_seconds = elapsed
        self.note("cpu_ms", round(1000 * (time.process_time() - self.cpu_started)))
        pages = self.stats.extra.get("pages_by_domain", Counter())
        for domain, count in pages.items():
            seconds = max(self.last_outcome[domain] - self.started, 1e-3)
            self.stats.count("pages_per_second", domain, round(count / seconds, 3))
        self.stats.check_balanced()
        return self.stats
