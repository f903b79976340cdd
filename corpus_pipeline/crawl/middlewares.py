"""Downloader middlewares: the address rule and redirect loops, robots Crawl-delay, retry backoff.

Order (settings.py): SafetyMiddleware (50) runs before RobotsTxtMiddleware (100), so a forbidden
host gets no robots.txt request either; CrawlDelayMiddleware (110) runs after it, once the host's
robots.txt is parsed; BackoffRetryMiddleware replaces scrapy's RetryMiddleware at its place (550).
"""

from __future__ import annotations

from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from twisted.internet.task import deferLater

from corpus_pipeline.crawl.safety import AddressPolicy, RefusedAddress, UnsupportedScheme
from corpus_pipeline.crawl.seeds import ALLOWED_SCHEMES
from corpus_pipeline.urls import canonical_url


class RedirectLoop(IgnoreRequest):
    """A redirect led back to a URL earlier in the same redirect chain."""


class DuplicateRedirect(IgnoreRequest):
    """A redirect led to a page the crawl has already fetched or scheduled."""


class SafetyMiddleware:
    def __init__(self, crawler):
        self.crawler = crawler
        self.policy = AddressPolicy.from_allowlist(crawler.settings.getlist("CRAWL_ALLOW_ADDRESSES"))

    @classmethod
    def from_crawler(cls, crawler) -> SafetyMiddleware:
        return cls(crawler)

    async def process_request(self, request, spider=None):
        parts = urlparse_cached(request)
        if parts.scheme not in ALLOWED_SCHEMES:
            raise UnsupportedScheme(f"scheme {parts.scheme!r} is never fetched: {request.url}")
        chain = request.meta.get("redirect_urls")
        if chain:
            target = canonical_url(request.url)
            if target in {canonical_url(url) for url in chain}:
                raise RedirectLoop(f"redirect loop back to {request.url}")
            if not request.meta.get("retry_times") and not self.crawler.spider.claim(target):
                raise DuplicateRedirect(f"redirect to already crawled {request.url}")
        host = parts.hostname or ""
        # Resolved through the crawler's resolver, the one the download handler connects with
        # (scrapy's resolver caches, so both see the same address).
        from twisted.internet import reactor  # imported late: scrapy installs the asyncio reactor first

        ip = await maybe_deferred_to_future(reactor.resolve(host))
        kind = self.policy.refusal(host, ip)
        if kind:
            raise RefusedAddress(f"{host} resolves to {ip} ({kind}); not in allow_addresses")
        request.meta["resolved_ip"] = ip
        return None


class CrawlDelayMiddleware:
    """Honours robots.txt Crawl-delay (scrapy obeys Disallow only) and sleeps a retry's backoff."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.user_agent = crawler.settings.get("ROBOTSTXT_USER_AGENT") or crawler.settings.get("USER_AGENT")
        self.obey = crawler.settings.getbool("ROBOTSTXT_OBEY")
        self.delays: dict[str, float] = {}

    @classmethod
    def from_crawler(cls, crawler) -> CrawlDelayMiddleware:
        return cls(crawler)

    def _robots(self) -> RobotsTxtMiddleware | None:
        for middleware in self.crawler.engine.downloader.middleware.middlewares:
            if isinstance(middleware, RobotsTxtMiddleware):
                return middleware
        return None

    async def process_request(self, request, spider=None):
        backoff = request.meta.pop("backoff_s", 0)
        if backoff:
            from twisted.internet import reactor

            await maybe_deferred_to_future(deferLater(reactor, backoff, lambda: None))
        if not self.obey or request.meta.get("dont_obey_robotstxt"):
            return None
        host = urlparse_cached(request).hostname or ""
        if host not in self.delays:
            robots = self._robots()
            parser = await robots.robot_parser(request) if robots else None
            self.delays[host] = (parser.crawl_delay(self.user_agent) if parser else None) or 0.0
        delay = self.delays[host]
        if delay:
            downloader = self.crawler.engine.downloader
            key = downloader.get_slot_key(request)
            settings = downloader.per_slot_settings.setdefault(key, {})
            settings["delay"] = max(settings.get("delay", downloader._delay), delay)
            if key in downloader.slots:
                downloader.slots[key].delay = max(downloader.slots[key].delay, delay)
            # AutoThrottle may lower a slot's delay down to DOWNLOAD_DELAY; not below Crawl-delay.
            request.meta["autothrottle_dont_adjust_delay"] = True
        return None


class BackoffRetryMiddleware(RetryMiddleware):
    """scrapy's retries, each one waiting CRAWL_RETRY_BACKOFF * 2**(attempt - 1) seconds first."""

    def _retry(self, request, reason):
        retry = super()._retry(request, reason)
        if retry is not None:
            base = self.crawler.settings.getfloat("CRAWL_RETRY_BACKOFF")
            retry.meta["backoff_s"] = base * 2 ** (retry.meta.get("retry_times", 1) - 1)
        return retry
