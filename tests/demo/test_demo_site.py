"""The demo corpus: real text in, realistic pages out, and a WARC that reads back exactly."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
import zlib
from urllib.robotparser import RobotFileParser

import pytest
import trafilatura
from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.demo.site import (
    DISALLOWED_SECTION,
    GBK_PAGES,
    NEWS_PAGES,
    DemoSite,
    build_demo_site,
)
from corpus_pipeline.demo.sources import load_peoples_daily, load_reviews, load_wikipedia, package_file
from corpus_pipeline.demo.warc import write_demo_warc

CJK = re.compile(r"[\u4e00-\u9fff]")
POS_TAG = re.compile(r"/[A-Za-z]")
ARTICLE_BLOCK = re.compile(r"<article>.*?</article>", re.DOTALL)


@pytest.fixture(scope="module")
def site() -> DemoSite:
    return build_demo_site(seed=7, max_articles_per_source=4)


def test_peoples_daily_articles_are_untagged_chinese_text():
    articles = load_peoples_daily()
    assert len(articles) > 1000
    for article in articles:
        text = "".join((article.title, *article.paragraphs))
        assert CJK.search(article.title) and CJK.search(text)
        assert not POS_TAG.search(text + article.subtitle), text[:200]
        assert " " not in text  # words are joined without spaces, as Chinese is written
    assert any(a.title == "迈向充满希望的新世纪——一九九八年新年讲话（附图片１张）" for a in articles)


def test_reviews_are_real_and_keep_their_duplicates():
    reviews = load_reviews()
    assert len(reviews) > 30000
    assert {r.positive for r in reviews} == {True, False}
    assert len({r.text for r in reviews}) < len(reviews)
    assert all(r.text == r.text.strip() and r.text for r in reviews)


def test_wikipedia_articles_are_plain_text_without_redirects():
    articles = load_wikipedia(limit=3)
    assert [a.title for a in articles] == ["Anarchism", "Autism", "Albedo"]  # AccessibleComputing redirects
    for article in articles:
        assert article.language == "en" and len(article.paragraphs) >= 3
        for paragraph in article.paragraphs:
            assert not any(markup in paragraph for markup in ("[[", "]]", "{{", "''", "==", "<ref")), paragraph
    assert articles[0].paragraphs[0].startswith("Anarchism is a political philosophy")


def test_missing_package_is_named_in_the_error():
    with pytest.raises(ModuleNotFoundError, match="no_such_demo_package"):
        package_file("no_such_demo_package", "data.txt")


def test_site_is_deterministic_for_a_seed(site):
    assert build_demo_site(seed=7, max_articles_per_source=4) == site
    other = build_demo_site(seed=8, max_articles_per_source=4)
    assert [p.path for p in other.pages] != [p.path for p in site.pages]


def test_site_has_every_kind_and_unique_paths(site):
    paths = [p.path for p in site.pages]
    assert len(paths) == len(set(paths))
    kinds = {p.kind for p in site.pages}
    assert kinds == {"index", "article", "reviews", "print", "duplicate", "near_duplicate", "private"}
    assert {p.language for p in site.pages} == {"zh", "en"}
    assert all(p.url == site.base_url + p.path and site.page(p.path) is p for p in site.pages)


def _assert_internal_links_resolve(site: DemoSite) -> None:
    for page in site.pages:
        for href in re.findall(r'href="(/[^"#]*)"', page.html):
            if not href.startswith("/static/"):
                assert site.page(href) is not None, f"{page.path} links to missing {href}"


def test_internal_links_all_resolve(site):
    _assert_internal_links_resolve(site)


def test_duplicates_and_near_duplicates(site):
    by_path = {p.path: p for p in site.pages}
    for page in site.pages:
        if page.kind == "duplicate":  # byte-identical copy under another URL
            assert page.html == by_path[page.path.removeprefix("/archive")].html
        elif page.kind == "print":  # different layout, same article
            original = by_path[page.path.removeprefix("/print")]
            assert page.html != original.html
            assert ARTICLE_BLOCK.search(page.html).group() == ARTICLE_BLOCK.search(original.html).group()
            assert ("X-Robots-Tag", "noindex") in page.http_headers()
        elif page.kind == "near_duplicate":  # a sentence dropped, an editor's note added
            copy = ARTICLE_BLOCK.search(page.html).group()
            original = ARTICLE_BLOCK.search(by_path[page.path.removeprefix("/partner")].html).group()
            assert copy != original
            shared = set(original.splitlines()) & set(copy.splitlines())
            assert len(shared) >= len(original.splitlines()) - 2


def test_robots_disallows_the_private_section_and_sitemap_skips_it(site):
    robots = RobotFileParser()
    robots.parse(site.robots_txt.splitlines())
    private = [p for p in site.pages if p.kind == "private"]
    assert private and all(p.path.startswith(DISALLOWED_SECTION) for p in private)
    allowed = [p.url for p in site.pages if not p.path.startswith(DISALLOWED_SECTION)]
    assert len(allowed) < len(site.pages) - len(private)  # the section's own listing page too
    assert [p.url for p in site.pages if robots.can_fetch("*", p.url)] == allowed
    namespace = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
    listed = [loc.text for loc in ET.fromstring(site.sitemap_xml).findall("s:url/s:loc", namespace)]
    assert listed == allowed


def test_gbk_pages_declare_their_charset_only_in_meta(site):
    gbk = [p for p in site.pages if p.charset == "gbk"]
    assert len(gbk) == 4
    for page in gbk:
        body = page.body_bytes()
        with pytest.raises(UnicodeDecodeError):
            body.decode("utf-8")
        assert page.title in body.decode("gbk")
        assert page.content_type == "text/html"
        assert b'content="text/html; charset=gbk"' in body
    assert all(p.content_type == "text/html; charset=utf-8" for p in site.pages if p.charset == "utf-8")


def test_trafilatura_keeps_the_article_and_drops_the_boilerplate(site):
    for language in ("zh", "en"):
        page = next(p for p in site.pages if p.kind == "article" and p.language == language)
        first_paragraph = re.search(r"<article>.*?<p>(.*?)</p>", page.html, re.DOTALL).group(1)
        text = trafilatura.extract(page.html)
        assert first_paragraph.replace("&quot;", '"').replace("&#x27;", "'")[:40] in text
        boilerplate_snippets = (
            "We use cookies",
            "本网站使用cookie",
            "联系我们",
            "Contact us",
            "@chenguang",
            "@morninglight",
            "© 2026",
            "相关阅读",
            "Related articles",
            "分享到",
            "Share:",
        )
        for boilerplate in boilerplate_snippets:
            assert boilerplate not in text, (page.path, boilerplate)


def _gzip_members(data: bytes) -> int:
    members = 0
    while data:
        decompressor = zlib.decompressobj(zlib.MAX_WBITS | 16)
        decompressor.decompress(data)
        assert decompressor.eof
        data = decompressor.unused_data
        members += 1
    return members


def test_warc_reads_back_record_for_record(site, tmp_path):
    path = tmp_path / "demo.warc.gz"
    records = write_demo_warc(site, path)
    assert records == 1 + 2 * len(site.pages)
    assert not (tmp_path / "demo.warc.gz.tmp").exists()
    data = path.read_bytes()
    assert _gzip_members(data) == records

    with path.open("rb") as stream:
        read = [(r.rec_type, r.rec_headers, r.http_headers, r.content_stream().read()) for r in ArchiveIterator(stream)]
    assert [r[0] for r in read] == ["warcinfo"] + ["request", "response"] * len(site.pages)
    assert read[0][1].protocol == "WARC/1.1"
    for page, (request, response) in zip(site.pages, zip(read[1::2], read[2::2], strict=True), strict=True):
        assert request[1].get_header("WARC-Target-URI") == page.url == response[1].get_header("WARC-Target-URI")
        assert request[1].get_header("WARC-Concurrent-To") == response[1].get_header("WARC-Record-ID")
        assert request[2].protocol == "GET" and request[2].statusline.startswith(page.path)
        assert response[2].get_statuscode() == "200"
        assert response[2].get_header("Content-Type") == page.content_type
        assert response[3] == page.body_bytes()
    record_ids = [r[1].get_header("WARC-Record-ID") for r in read]
    assert len(set(record_ids)) == records

    again = tmp_path / "again" / "demo.warc.gz"
    write_demo_warc(build_demo_site(seed=7, max_articles_per_source=4), again)
    assert again.read_bytes() == data  # byte-deterministic: fixed dates and uuid5 record ids


def test_full_demo_size():
    site = build_demo_site()
    assert 300 <= len(site.pages) <= 600
    assert len({p.path for p in site.pages}) == len(site.pages)
    _assert_internal_links_resolve(site)
    assert sum(p.kind == "article" and p.language == "zh" for p in site.pages) == NEWS_PAGES + GBK_PAGES
    assert sum(len(p.body_bytes()) for p in site.pages) > 2_000_000
