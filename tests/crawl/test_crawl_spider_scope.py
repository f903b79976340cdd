"""The spider's scheduling decisions, without a reactor: seen-set, scope, limits, validators."""

import pytest
from scrapy.http import HtmlResponse

from corpus_pipeline.crawl.config import CrawlConfig
from corpus_pipeline.crawl.spider import CorpusSpider
from corpus_pipeline.crawl.stats import CrawlCounters
from corpus_pipeline.urls import canonical_url


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


def test_links_to_binary_files_out_of_scope_or_other_schemes_are_not_followed():
    spider = _spider()
    links = [
        "/a.pdf",
        "/b.JPG;jsessionid=1",
        "/c.tar.gz?x=1",
        "/d.html",
        "/e.pdf/",
        "file:///etc/passwd",
        "http://other.org/",
    ]
    body = "".join(f'<a href="{href}">x</a>' for href in links).encode()
    response = HtmlResponse("http://www.site.com/", body=body, encoding="utf-8")
    followed = [request.url for request in spider._follow(response, 1)]
    assert followed == ["http://www.site.com/d.html", "http://www.site.com/e.pdf/"]
    notes = spider.counters.stats.extra["crawl"]
    assert notes["links_denied_extension"] == 3
    assert notes["links_unsupported_scheme"] == 1 and notes["links_out_of_scope"] == 1


@pytest.mark.parametrize(
    "url",
    [
        "HTTP://Example.com:80/a%7eb#x",
        "https://x.org/%e4%b8%ad?q=%26",
        "https://x.org/中 文",
        "http://[::1]:80/",
        "http://[broken",
    ],
)
def test_canonical_form_is_a_fixed_point(url):
    # page_request looks a link up in the seen-set before canonicalizing it, which is only right
    # because canonical_url(canonical_url(u)) == canonical_url(u).
    assert canonical_url(canonical_url(url)) == canonical_url(url)
    spider = _spider()
    spider.claim(canonical_url(url))
    assert spider.page_request(canonical_url(url), 1) is None and spider.page_request(url, 1) is None
