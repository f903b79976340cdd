"""CrawlConfig -> scrapy settings for one crawl task."""

from __future__ import annotations

from corpus_pipeline.crawl.config import CrawlConfig

_PACKAGE = "corpus_pipeline.crawl"
# With DOWNLOAD_DELAY 0, scrapy 2.19 under the asyncio reactor starts every queued request of a slot
# in one pass (a download counts as active only once its task first runs), so a per-host limit of 2
# let 4 requests reach one server at once, and 9 for a limit of 8. Any positive delay makes the slot
# release one request per pass; 1 ms caps a host at 1,000 requests/s, far above any polite rate.
MIN_DOWNLOAD_DELAY = 0.001
RETRY_HTTP_CODES = [500, 502, 503, 504, 522, 524, 408, 429]


def scrapy_settings(config: CrawlConfig) -> dict:
    settings = {
        "USER_AGENT": config.user_agent,
        "ROBOTSTXT_OBEY": config.obey_robots,
        "ROBOTSTXT_USER_AGENT": config.user_agent,
        "DOWNLOAD_DELAY": max(config.download_delay, MIN_DOWNLOAD_DELAY),
        # scrapy varies each wait by +-50% by default, which breaks "at least download_delay apart".
        "DOWNLOAD_DELAY_JITTER": 0.0,
        "CONCURRENT_REQUESTS": config.concurrent_requests,
        "CONCURRENT_REQUESTS_PER_DOMAIN": config.concurrent_requests_per_domain,
        "AUTOTHROTTLE_ENABLED": config.autothrottle,
        "AUTOTHROTTLE_START_DELAY": config.download_delay,
        "AUTOTHROTTLE_TARGET_CONCURRENCY": config.autothrottle_target_concurrency,
        # Depth, page limits and the seen-set live in the spider, so every dropped URL is counted.
        "DEPTH_LIMIT": 0,
        "DOWNLOAD_TIMEOUT": config.timeout_s,
        "RETRY_ENABLED": config.retries > 0,
        "RETRY_TIMES": config.retries,
        "RETRY_HTTP_CODES": RETRY_HTTP_CODES,
        "CRAWL_RETRY_BACKOFF": config.retry_backoff_s,
        "REDIRECT_MAX_TIMES": config.max_redirects,
        # The spider cuts bodies at max_body_bytes itself (scrapy would drop them instead); this
        # bound stops a decompression bomb: a body that inflates past it is an error.
        "DOWNLOAD_MAXSIZE": 4 * config.max_body_bytes,
        "DOWNLOAD_WARNSIZE": 0,
        "DOWNLOAD_FAIL_ON_DATALOSS": True,
        "HTTPERROR_ALLOW_ALL": True,
        "COOKIES_ENABLED": False,
        # Connections go straight to the checked address: an http_proxy from the environment would
        # send them elsewhere (and past the address rule), so environment proxies are ignored.
        "HTTPPROXY_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "WARNING",
        "CRAWL_ALLOW_ADDRESSES": list(config.allow_addresses),
        "DOWNLOADER_MIDDLEWARES": {
            f"{_PACKAGE}.middlewares.SafetyMiddleware": 50,
            f"{_PACKAGE}.middlewares.CrawlDelayMiddleware": 110,
            "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
            f"{_PACKAGE}.middlewares.BackoffRetryMiddleware": 550,
        },
        # Only http(s) handlers exist, so no other scheme can be fetched even by a redirect.
        "DOWNLOAD_HANDLERS": {"file": None, "data": None, "s3": None, "ftp": None},
    }
    if config.static_hosts:
        settings["TWISTED_DNS_RESOLVER"] = f"{_PACKAGE}.safety.StaticResolver"
        settings["CRAWL_STATIC_HOSTS"] = dict(config.static_hosts)
    settings.update(config.scrapy_settings)
    return settings
