"""The spider: seeds and sitemaps in, pages written to the WARC, in-scope links followed.

Scope, depth, page limits and the canonical-URL seen-set are decided here rather than by scrapy's
DepthMiddleware and dupefilter, so that every URL the crawl attempts ends in exactly one counted
outcome (CrawlCounters). Bodies are cut at max_body_bytes as they arrive (scrapy itself would
drop the whole response) and non-HTML downloads stop as soon as their headers arrive.
"""

from __future__ import annotations

from collections import Counter
from http import HTTPStatus
from urllib.parse import urlsplit

import scrapy
from scrapy import signals
from scrapy.exceptions import StopDownload
from scrapy.http import TextResponse
from scrapy.linkextractors import IGNORED_EXTENSIONS, LinkExtractor
from scrapy.utils.sitemap import Sitemap

from corpus_pipeline.crawl.config import CrawlConfig
from corpus_pipeline.crawl.seeds import ALLOWED_SCHEMES, url_domain
from corpus_pipeline.crawl.stats import CrawlCounters, failure_reason
from corpus_pipeline.crawl.warc_writer import RollingWarcWriter
from corpus_pipeline.urls import canonical_url

NON_HTML_PREFIX_BYTES = 64 * 1024
# Links to binary files (.pdf, .jpg, .zip ...: scrapy's list) are not followed. scrapy's
# LinkExtractor tests its 91 suffixes one by one on a re-parsed URL, 8 % of the crawl's CPU on the
# bench site; _follow applies the same rule with one str.endswith on the split it makes anyway.
DENIED_SUFFIXES = tuple(f".{extension}" for extension in IGNORED_EXTENSIONS)


def _media_type(value: bytes | None) -> str:
    return (value or b"").decode("latin-1").split(";", 1)[0].strip().lower()


def _status_line(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


def _has_denied_extension(path: str) -> bool:
    """scrapy's rule: `;params` after the last `/` (urlparse's params) are not part of the name."""
    name = path[path.rfind("/") + 1 :].split(";", 1)[0]
    return name.lower().endswith(DENIED_SUFFIXES)


def _header_list(headers) -> list[tuple[str, str]]:
    return [(name.decode("latin-1"), v.decode("latin-1")) for name, values in headers.items() for v in values]


class CorpusSpider(scrapy.Spider):
    name = "corpus"

    def __init__(self, spec: dict, writer: RollingWarcWriter, counters: CrawlCounters, **kwargs):
        super().__init__(**kwargs)
        self.config = CrawlConfig(**spec["config"])
        self.seeds: list[str] = spec["seeds"]
        self.validators: dict[str, dict] = spec.get("validators", {})
        self.writer, self.counters = writer, counters
        domains = self.config.allowed_domains or sorted({url_domain(u) for u in self.seeds})
        self.allowed = tuple(d.lower().rstrip(".") for d in domains)
        self.content_types = frozenset(t.lower() for t in self.config.content_types)
        self.links = LinkExtractor(
            allow=self.config.allow_patterns, deny=self.config.deny_patterns, deny_extensions=[], unique=True
        )
        self.seen: set[str] = set()
        self.per_domain: Counter = Counter()
        self.scheduled = 0

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.on_headers, signal=signals.headers_received)
        crawler.signals.connect(spider.on_bytes, signal=signals.bytes_received)
        return spider

    def claim(self, canonical: str) -> bool:
        """Add a URL to the seen-set; False if it was there already."""
        if canonical in self.seen:
            return False
        self.seen.add(canonical)
        return True

    def in_scope(self, url: str) -> bool:
        return self._host_in_scope(urlsplit(url).hostname)

    def _host_in_scope(self, host: str | None) -> bool:
        host = (host or "").lower()
        return any(host == d or host.endswith("." + d) for d in self.allowed)

    def page_request(self, url: str, depth: int) -> scrapy.Request | None:
        # Everything in `seen` is a canonical_url() result and canonical_url is idempotent, so a
        # link already written in canonical form (most are) is found without canonicalizing it.
        if url in self.seen:
            return None
        canonical = canonical_url(url)
        if canonical in self.seen:
            return None
        domain = url_domain(canonical)
        limit = self.config.max_pages_per_domain
        if limit and self.per_domain[domain] >= limit:
            self.counters.note("over_domain_page_limit")
            return None
        if self.config.max_pages and self.scheduled >= self.config.max_pages:
            self.counters.note("over_crawl_page_limit")
            return None
        self.claim(canonical)
        self.per_domain[domain] += 1
        self.scheduled += 1
        headers = {}
        previous = self.validators.get(canonical)
        if previous:
            if previous.get("etag"):
                headers["If-None-Match"] = previous["etag"]
            if previous.get("last_modified"):
                headers["If-Modified-Since"] = previous["last_modified"]
        meta = {"kind": "page", "domain": domain, "crawl_depth": depth}
        return scrapy.Request(
            canonical, self.parse_page, errback=self.on_error, headers=headers, meta=meta, dont_filter=True
        )

    async def start(self):
        for url in self.seeds:
            if urlsplit(url).path.endswith(".xml"):
                meta = {"kind": "sitemap"}
                yield scrapy.Request(url, self.parse_sitemap, errback=self.on_error, meta=meta, dont_filter=True)
            elif request := self.page_request(url, 0):
                yield request
        # A recrawl also revisits every page of the previous crawl: pages reached only through a
        # page that is now unchanged (304, no body, no links) would otherwise be lost.
        for url in sorted(self.validators):
            if request := self.page_request(url, 0):
                yield request

    def parse_sitemap(self, response):
        self.counters.note("sitemaps")
        sitemap = Sitemap(response.body)
        for entry in sitemap:
            location = entry.get("loc", "")
            if urlsplit(location).scheme not in ALLOWED_SCHEMES:
                continue
            if sitemap.type == "sitemapindex":
                yield response.follow(location, self.parse_sitemap, errback=self.on_error, meta={"kind": "sitemap"})
            elif request := self.page_request(location, 0):
                yield request

    def on_headers(self, headers, body_length, request, spider):
        if request.meta.get("kind") == "page":
            request.meta["media_type"] = _media_type(headers.get(b"Content-Type"))

    def on_bytes(self, data, request, spider):
        if request.meta.get("kind") != "page":
            return
        received = request.meta.get("bytes_received", 0) + len(data)
        request.meta["bytes_received"] = received
        # The status is not known here, so a non-HTML body is not cut at once (a 503's text/plain
        # body must still reach the retry logic), only after NON_HTML_PREFIX_BYTES.
        media_type = request.meta.get("media_type")
        unwanted = media_type and media_type not in self.content_types and received >= NON_HTML_PREFIX_BYTES
        if unwanted or received >= self.config.max_body_bytes:
            raise StopDownload(fail=False)

    def _exchange(self, response) -> dict:
        request = response.request
        parts = urlsplit(response.url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = [("Host", parts.netloc), *_header_list(request.headers)]
        ip = response.ip_address or request.meta.get("resolved_ip")
        return {
            "url": response.url,
            "request_line": f"{request.method} {target} HTTP/1.1",
            "request_headers": headers,
            "status_line": _status_line(response.status),
            "response_headers": _header_list(response.headers),
            "ip": str(ip) if ip else None,
        }

    def parse_page(self, response):
        domain, status = response.meta["domain"], response.status
        previous = self.validators.get(canonical_url(response.url))
        if status == 304 and previous:
            self.writer.write_not_modified(**self._exchange(response), refers_to_date=previous.get("date"))
            self.counters.kept(domain, status, 0)
            self.counters.note("unchanged")
            return
        if not 200 <= status < 300:
            reason = f"http_{status // 100}xx"
            location = response.headers.get(b"Location")
            # scrapy follows only http(s) redirects; the others arrive here and are never fetched.
            if location and urlsplit(response.urljoin(location.decode("latin-1"))).scheme not in ALLOWED_SCHEMES:
                reason = "unsupported_scheme"
            self.counters.dropped(domain, reason, status)
            return
        media_type = _media_type(response.headers.get(b"Content-Type")) or "text/html"
        if media_type not in self.content_types:
            self.counters.dropped(domain, "content_type", status)
            return
        body, truncated = response.body, None
        if "download_stopped" in response.flags or len(body) >= self.config.max_body_bytes:
            body, truncated = body[: self.config.max_body_bytes], "length"
            self.counters.note("truncated")
        self.writer.write_exchange(**self._exchange(response), body=body, truncated=truncated)
        self.counters.kept(domain, status, len(body))
        depth = response.meta["crawl_depth"]
        if isinstance(response, TextResponse) and (not self.config.depth_limit or depth < self.config.depth_limit):
            yield from self._follow(response, depth + 1)

    def _follow(self, response, depth: int):
        for link in self.links.extract_links(response):
            parts = urlsplit(link.url)
            if parts.scheme not in ALLOWED_SCHEMES:
                self.counters.note("links_unsupported_scheme")
            elif _has_denied_extension(parts.path):
                self.counters.note("links_denied_extension")
            elif not self._host_in_scope(parts.hostname):
                self.counters.note("links_out_of_scope")
            elif request := self.page_request(link.url, depth):
                yield request

    def on_error(self, failure):
        request = failure.request
        if request.meta.get("kind") == "sitemap":
            self.counters.note("sitemap_errors")
            return
        self.counters.dropped(request.meta["domain"], failure_reason(failure.value))
