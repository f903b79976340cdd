"""The `crawl:` section: politeness, limits, safety and WARC output of the crawler."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from corpus_pipeline.config_base import Strict


class CrawlConfig(Strict):
    """The crawler (corpus_pipeline/crawl): politeness, limits, safety and WARC output."""

    user_agent: str = "corpus-pipeline-crawler/0.1"
    obey_robots: bool = True
    # Seconds between requests to one host; robots.txt Crawl-delay raises it for that host.
    download_delay: float = Field(1.0, ge=0.0)
    concurrent_requests: int = Field(32, ge=1)
    concurrent_requests_per_domain: int = Field(2, ge=1)
    autothrottle: bool = True
    autothrottle_target_concurrency: float = Field(1.0, gt=0.0)
    depth_limit: int = Field(5, ge=0)  # 0: unlimited; seeds are depth 0
    max_pages_per_domain: int = Field(10_000, ge=0)  # 0: unlimited; pages attempted per registered domain
    # 0: unlimited. Applies to each crawl task (the whole crawl under --runner local).
    max_pages: int = Field(0, ge=0)
    # Registered domains (or hosts) links may lead to; empty: the seeds' registered domains.
    allowed_domains: list[str] = Field(default_factory=list)
    allow_patterns: list[str] = Field(default_factory=list)  # regexes a followed URL must match (any)
    deny_patterns: list[str] = Field(default_factory=list)  # regexes that exclude a URL
    content_types: list[str] = Field(default_factory=lambda: ["text/html", "application/xhtml+xml"])
    max_body_bytes: int = Field(10_000_000, ge=1_000)  # longer bodies are cut and marked WARC-Truncated
    timeout_s: float = Field(30.0, gt=0.0)
    retries: int = Field(2, ge=0)  # on 5xx, 408, 429 and connection errors
    retry_backoff_s: float = Field(1.0, ge=0.0)  # doubled for each further retry
    max_redirects: int = Field(5, ge=0)
    # Private, loopback, link-local, multicast and reserved targets are refused unless listed here
    # (CIDRs such as 127.0.0.1/32, or host names).
    allow_addresses: list[str] = Field(default_factory=list)
    # Fixed name -> address table (like /etc/hosts); with it, names not in the table fail to resolve.
    static_hosts: dict[str, str] = Field(default_factory=dict)
    warc_max_bytes: int = Field(1_000_000_000, ge=1)  # a WARC file is closed once it reaches this size
    warc_prefix: str = Field("crawl", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    tasks: int = Field(0, ge=0)  # Spark tasks (domain groups); 0: one per registered domain, at most 64
    # Scrapy settings applied last, for options this section does not name.
    scrapy_settings: dict[str, Any] = Field(default_factory=dict)
