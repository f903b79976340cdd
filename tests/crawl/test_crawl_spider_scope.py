"""The spider's scheduling decisions, without a reactor: seen-set, scope, limits, validators."""

from corpus_pipeline.config import CrawlConfig
from corpus_pipeline.crawl.spider import CorpusSpider
from corpus_pipeline.crawl.stats import CrawlCounters


def _spider(validators=None, **config) -> CorpusSpider:
    spec = {
        "config": CrawlConfig(**config).model_dump(mode="json"),
        "seeds": ["http://www.site.com/"],
        "validators": validators or {},
    }
    return CorpusSpider(spec, writer=None, counters=CrawlCounters(0))


def test_seen_set_uses_canonical_urls():
    spider = _spider()
    assert spider.page_request("http://WWW.site.com:80/a%7eb#top", 1).url == "http://www.site.com/a~b"
    assert spider.page_request("http://www.site.com/a~b", 1) is None


def test_scope_is_the_seeds_registered_domain_by_default():
    spider = _spider()
    assert spider.in_scope("http://blog.site.com/x") and not spider.in_scope("http://elsewhere.org/")
    assert _spider(allowed_domains=["elsewhere.org"]).in_scope("http://a.elsewhere.org/")


def test_page_limits_per_domain_and_per_crawl():
    spider = _spider(max_pages_per_domain=2)
    assert [spider.page_request(f"http://site.com/{i}", 1) is not None for i in range(3)] == [True, True, False]
    assert spider.page_request("http://other.org/", 1) is not None
    assert spider.counters.stats.extra["crawl"]["over_domain_page_limit"] == 1
    spider = _spider(max_pages=1)
    assert spider.page_request("http://site.com/1", 1) and spider.page_request("http://other.org/", 1) is None


def test_previous_validators_become_conditional_headers():
    previous = {"http://site.com/p": {"etag": '"abc"', "last_modified": "Thu, 15 Jan 2026 08:00:00 GMT"}}
    request = _spider(validators=previous).page_request("http://site.com/p", 0)
    assert request.headers[b"If-None-Match"] == b'"abc"'
    assert request.headers[b"If-Modified-Since"] == b"Thu, 15 Jan 2026 08:00:00 GMT"
