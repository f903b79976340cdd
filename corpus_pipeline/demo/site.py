"""The demo website: real articles rendered into pages carrying the boilerplate real sites have.

The same `DemoSite` feeds the demo WARC and the crawler's local test server, so pages link to
each other with root-relative paths and only the canonical links, sitemap and URLs carry
`base_url`. What the pipeline must cope with is built in on purpose: navigation, cookie banners,
footers with contact details, related links and share buttons around the article text; exact and
near duplicates under other URLs; a section that robots.txt disallows; pages whose GBK charset
is declared only in a <meta> tag.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cached_property
from html import escape

from corpus_pipeline.demo.sources import Article, Review, load_peoples_daily, load_reviews, load_wikipedia

DEFAULT_BASE_URL = "https://news.example.com"
DISALLOWED_SECTION = "/private/"

# Pages per kind in the full demo: about 500 pages and a few MB of WARC. English has no count:
# every usable article of the gensim dump (96) is used.
NEWS_PAGES = 260
REVIEW_PAGES = 40
REVIEWS_PER_PAGE = 20
PRINT_PAGES = 25
DUPLICATE_PAGES = 15
NEAR_DUPLICATE_PAGES = 20
PRIVATE_PAGES = 12
GBK_PAGES = 8
RELATED_LINKS = 5

SITE_NAME = {"zh": "晨光新闻网", "en": "Morning Light Reference"}
_HTML_LANG = {"zh": "zh-CN", "en": "en"}
_NAV = {
    "zh": (
        ("/", "首页"),
        ("/news/zh/", "新闻"),
        ("/reviews/", "用户评论"),
        ("/wiki/en/", "English"),
        ("#contact", "关于我们"),
    ),
    "en": (
        ("/", "Home"),
        ("/wiki/en/", "Reference"),
        ("/news/zh/", "中文新闻"),
        ("#contact", "About us"),
        ("#contact", "Contact"),
    ),
}
_COOKIE_BANNER = {
    "zh": "本网站使用cookie来改善您的浏览体验并统计访问量。继续浏览即表示您同意我们使用cookie。",
    "en": "We use cookies to improve your browsing experience and to analyse our traffic. "
    "By continuing to browse this site you agree to our use of cookies.",
}
_COOKIE_BUTTONS = {"zh": ("接受", "拒绝", "隐私政策"), "en": ("Accept", "Decline", "Privacy policy")}
_FOOTER = {
    "zh": '<div class="contact"><h4>联系我们</h4><p>电话：010-6521 8830　传真：010-6521 8831</p>'
    "<p>邮箱：service@chenguang-news.example.com</p><p>地址：北京市朝阳区建国路88号　邮编：100022</p></div>"
    '<p class="copyright">© 2026 晨光新闻网 版权所有　京ICP备26001234号　'
    '<a href="/private/">员工登录</a></p>',
    "en": '<div class="contact"><h4>Contact us</h4><p>Phone: +1 555-014-2637</p>'
    "<p>Email: editors@morninglight.example.com</p><p>1200 Harbor Street, Springfield</p></div>"
    '<p class="license">Article text from Wikipedia, available under the Creative Commons '
    "Attribution-ShareAlike License.</p>"
    '<p class="copyright">© 2026 Morning Light Media. All rights reserved.</p>',
}
_SHARE = {
    "zh": ("分享到：", ("微信", "微博", "QQ空间"), "打印本页"),
    "en": ("Share:", ("Facebook", "X", "Email"), "Print"),
}
_RELATED = {"zh": "相关阅读", "en": "Related articles"}
_BYLINE = {"zh": "来源：人民日报　1998年1月", "en": "From Wikipedia, the free encyclopedia"}
_SYNDICATION_NOTE = {
    "zh": "（本文转载自晨光新闻网，有删改。）",
    "en": "This article was syndicated from Morning Light Reference and has been edited.",
}
_SENTENCE = {"zh": re.compile(r"[^。！？]+[。！？”]*"), "en": re.compile(r"\S.*?(?:[.!?]+(?=\s|$)|$)")}
_SENTENCE_JOINER = {"zh": "", "en": " "}


@dataclass(frozen=True)
class DemoPage:
    path: str
    url: str
    title: str
    language: str  # "zh" or "en"
    kind: str  # index, article, reviews, print, duplicate, near_duplicate, private
    html: str
    charset: str = "utf-8"
    # Legacy pages declare their charset only in <meta>; the server then sends a bare text/html.
    charset_in_header: bool = True
    extra_headers: tuple[tuple[str, str], ...] = ()

    @property
    def content_type(self) -> str:
        return f"text/html; charset={self.charset}" if self.charset_in_header else "text/html"

    def http_headers(self) -> list[tuple[str, str]]:
        return [("Content-Type", self.content_type), *self.extra_headers]

    def body_bytes(self) -> bytes:
        # Legacy GBK sites write characters GBK lacks (©) as numeric character references.
        return self.html.encode(self.charset, errors="xmlcharrefreplace")


@dataclass(frozen=True)
class DemoSite:
    base_url: str
    seed: int
    pages: tuple[DemoPage, ...]
    robots_txt: str
    sitemap_xml: str

    @cached_property
    def _by_path(self) -> dict[str, DemoPage]:
        return {page.path: page for page in self.pages}

    def page(self, path: str) -> DemoPage | None:
        return self._by_path.get(path)


@dataclass(frozen=True)
class _Entry:
    """An article placed on the site, before rendering (rendering needs the other entries)."""

    path: str
    article: Article
    kind: str = "article"
    charset: str = "utf-8"


def _link_list(links: list[tuple[str, str]]) -> str:
    return "<ul>" + "".join(f'<li><a href="{escape(href)}">{escape(text)}</a></li>' for href, text in links) + "</ul>"


def _document(lang: str, title: str, body: str, charset: str = "utf-8", canonical: str = "") -> str:
    # Legacy GBK pages use the old http-equiv form, which charset sniffers must also understand.
    meta = (
        f'<meta charset="{charset}">'
        if charset == "utf-8"
        else f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">'
    )
    canonical_link = f'<link rel="canonical" href="{escape(canonical)}">\n' if canonical else ""
    return (
        f'<!DOCTYPE html>\n<html lang="{_HTML_LANG[lang]}">\n<head>\n{meta}\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)} - {SITE_NAME[lang]}</title>\n{canonical_link}"
        '<link rel="stylesheet" href="/static/site.css">\n'
        "<script>window.dataLayer=window.dataLayer||[];dataLayer.push({event:'pageview'});</script>\n"
        f"</head>\n<body>\n{body}\n</body>\n</html>\n"
    )


def _chrome(lang: str, main: str) -> str:
    """Cookie banner, navigation bar and footer around the page's main content."""
    accept, decline, policy = _COOKIE_BUTTONS[lang]
    return (
        f'<div id="cookie-consent" class="cookie-banner"><p>{_COOKIE_BANNER[lang]}'
        f' <a href="#contact">{policy}</a></p><button type="button">{accept}</button>'
        f'<button type="button">{decline}</button></div>\n'
        f'<header><div class="logo"><a href="/">{SITE_NAME[lang]}</a></div>'
        f'<nav class="main-nav">{_link_list(list(_NAV[lang]))}</nav></header>\n'
        f"<main>\n{main}\n</main>\n"
        f'<footer id="contact">{_FOOTER[lang]}</footer>'
    )


def _article_html(article: Article) -> str:
    subtitle = f'<p class="subtitle">{escape(article.subtitle)}</p>\n' if article.subtitle else ""
    paragraphs = "\n".join(f"<p>{escape(p)}</p>" for p in article.paragraphs)
    return (
        f"<article>\n<h1>{escape(article.title)}</h1>\n{subtitle}"
        f'<div class="byline">{_BYLINE[article.language]}</div>\n{paragraphs}\n</article>'
    )


def _article_page(entry: _Entry, related: list[_Entry], print_path: str | None, base_url: str) -> str:
    lang = entry.article.language
    label, networks, print_label = _SHARE[lang]
    share = "".join(f'<a class="share-{i}" href="#share">{name}</a>' for i, name in enumerate(networks))
    if print_path:
        share += f'<a class="print" href="{print_path}">{print_label}</a>'
    main = (
        f"{_article_html(entry.article)}\n"
        f'<div class="share">{label}{share}</div>\n'
        f'<aside class="related"><h3>{_RELATED[lang]}</h3>'
        f"{_link_list([(r.path, r.article.title) for r in related])}</aside>"
    )
    return _document(lang, entry.article.title, _chrome(lang, main), entry.charset, base_url + entry.path)


def _print_page(entry: _Entry, base_url: str) -> str:
    """Print layout: no navigation, banner or related links, so only the article text is shared."""
    lang = entry.article.language
    body = (
        f'<div class="print">\n{_article_html(entry.article)}\n<p class="print-url">{base_url}{entry.path}</p>\n</div>'
    )
    return _document(lang, entry.article.title, body, canonical=base_url + entry.path)


def _edited(article: Article, rng: random.Random) -> Article:
    """A syndicated copy: one sentence dropped and an editor's note added, i.e. a near duplicate."""
    lang = article.language
    paragraphs = list(article.paragraphs)
    index = rng.randrange(len(paragraphs))
    sentences = _SENTENCE[lang].findall(paragraphs[index])
    if len(sentences) > 1:
        del sentences[rng.randrange(len(sentences))]
        paragraphs[index] = _SENTENCE_JOINER[lang].join(sentences)
    paragraphs.append(_SYNDICATION_NOTE[lang])
    return Article(article.title, tuple(paragraphs), lang, article.subtitle)


def _private_article(article: Article) -> Article:
    return Article("【内部稿件】" + article.title, ("内部资料，请勿外传。", *article.paragraphs), "zh")


def _reviews_page(number: int, total: int, reviews: list[Review], rng: random.Random) -> str:
    items = []
    for review in reviews:
        stars = rng.randint(4, 5) if review.positive else rng.randint(1, 2)
        user = f"{rng.choice('abcdefghjkmnpqrstwxyz')}***{rng.randint(0, 9)}"
        day = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        items.append(
            f'<li class="review"><span class="user">{user}</span>'
            f'<span class="stars">{"★" * stars}{"☆" * (5 - stars)}</span><time>{day}</time>'
            f'<p>{escape(review.text)}</p><a class="helpful" href="#">有用({rng.randint(0, 40)})</a></li>'
        )
    pager = [
        (f"/reviews/page-{n:03d}.html", label)
        for n, label in ((number - 1, "上一页"), (number + 1, "下一页"))
        if 1 <= n <= total
    ]
    main = (
        f'<h1>用户评论（第{number}页）</h1>\n<ul class="reviews">\n' + "\n".join(items) + "\n</ul>\n"
        f'<nav class="pager">{_link_list(pager)}</nav>'
    )
    return _document("zh", f"用户评论 第{number}页", _chrome("zh", main))


def _index_page(lang: str, title: str, links: list[tuple[str, str]]) -> str:
    return _document(lang, title, _chrome(lang, f"<h1>{escape(title)}</h1>\n{_link_list(links)}"))


def _wiki_path(title: str) -> str:
    return "/wiki/en/" + re.sub(r"[^A-Za-z0-9]+", "_", title).strip("_") + ".html"


def build_demo_site(
    seed: int = 0, max_articles_per_source: int | None = None, base_url: str = DEFAULT_BASE_URL
) -> DemoSite:
    """The demo site, identical for identical arguments.

    `max_articles_per_source` caps every per-kind page count (news, English, review pages,
    duplicates, ...) so tests can build a site of a few dozen pages.
    """
    rng = random.Random(seed)
    base_url = base_url.rstrip("/")

    def cap(count: int) -> int:
        return count if max_articles_per_source is None else min(count, max_articles_per_source)

    def page(
        path: str, title: str, lang: str, kind: str, html: str, charset: str = "utf-8", **headers: str
    ) -> DemoPage:
        # Only the legacy (GBK) pages leave the charset out of the Content-Type header.
        extra_headers = tuple(headers.items())
        return DemoPage(path, base_url + path, title, lang, kind, html, charset, charset == "utf-8", extra_headers)

    news = load_peoples_daily()
    n_public, n_private, n_gbk = cap(NEWS_PAGES), cap(PRIVATE_PAGES), cap(GBK_PAGES)
    picked = rng.sample(range(len(news)), n_public + n_private + n_gbk)
    public = sorted(picked[:n_public])
    private = sorted(picked[n_public : n_public + n_private])
    legacy = sorted(picked[n_public + n_private :])
    # The position in the source file serves as a stable document number in the URL.
    articles = [_Entry(f"/news/zh/199801-{i + 1:04d}.html", news[i]) for i in public]
    articles += [_Entry(_wiki_path(a.title), a) for a in load_wikipedia(limit=max_articles_per_source)]

    printed = {articles[i].path for i in rng.sample(range(len(articles)), cap(PRINT_PAGES))}
    entries = list(articles)
    entries += [
        _Entry("/archive" + articles[i].path, articles[i].article, "duplicate")
        for i in sorted(rng.sample(range(len(articles)), cap(DUPLICATE_PAGES)))
    ]
    entries += [
        _Entry("/partner" + articles[i].path, _edited(articles[i].article, rng), "near_duplicate")
        for i in sorted(rng.sample(range(len(articles)), cap(NEAR_DUPLICATE_PAGES)))
    ]
    entries += [
        _Entry(f"{DISALLOWED_SECTION}drafts/199801-{i + 1:04d}.html", _private_article(news[i]), "private")
        for i in private
    ]
    entries += [_Entry(f"/legacy/199801-{i + 1:04d}.html", news[i], charset="gbk") for i in legacy]

    pages: list[DemoPage] = []
    html_by_path: dict[str, str] = {}
    for entry in entries:
        lang = entry.article.language
        if entry.kind == "duplicate":  # byte-identical copy, canonical link included
            html = html_by_path[entry.path.removeprefix("/archive")]
        else:
            peers = [a for a in articles if a.article.language == lang and a.path != entry.path]
            related = rng.sample(peers, min(RELATED_LINKS, len(peers)))
            print_path = "/print" + entry.path if entry.path in printed else None
            html = _article_page(entry, related, print_path, base_url)
        html_by_path[entry.path] = html
        pages.append(page(entry.path, entry.article.title, lang, entry.kind, html, entry.charset))
    for entry in articles:
        if entry.path in printed:
            # Real sites keep print views out of search indexes; crawlers may honour or ignore it.
            html = _print_page(entry, base_url)
            title, lang = entry.article.title, entry.article.language
            pages.append(page("/print" + entry.path, title, lang, "print", html, **{"X-Robots-Tag": "noindex"}))

    reviews = rng.sample(load_reviews(), cap(REVIEW_PAGES) * REVIEWS_PER_PAGE)
    for number in range(1, cap(REVIEW_PAGES) + 1):
        chunk = reviews[(number - 1) * REVIEWS_PER_PAGE : number * REVIEWS_PER_PAGE]
        html = _reviews_page(number, cap(REVIEW_PAGES), chunk, rng)
        pages.append(page(f"/reviews/page-{number:03d}.html", f"用户评论 第{number}页", "zh", "reviews", html))

    pages = _index_pages(pages, base_url) + pages
    robots_txt = f"User-agent: *\nDisallow: {DISALLOWED_SECTION}\n\nSitemap: {base_url}/sitemap.xml\n"
    locations = "".join(
        f"<url><loc>{escape(p.url)}</loc></url>\n" for p in pages if not p.path.startswith(DISALLOWED_SECTION)
    )
    sitemap_xml = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{locations}</urlset>\n'
    )
    return DemoSite(base_url, seed, tuple(pages), robots_txt, sitemap_xml)


def _index_pages(pages: list[DemoPage], base_url: str) -> list[DemoPage]:
    """Home page and one listing per section, so every page is reachable by following links."""
    sections = {
        "/news/zh/": ("zh", "新闻"),
        "/wiki/en/": ("en", "Reference"),
        "/reviews/": ("zh", "用户评论"),
        "/archive/": ("zh", "往期存档"),
        "/partner/": ("zh", "合作媒体转载"),
        "/legacy/": ("zh", "旧版新闻"),
        DISALLOWED_SECTION: ("zh", "内部系统"),
    }
    home_links = [(path, title) for path, (_, title) in sections.items()]
    index = [DemoPage("/", base_url + "/", SITE_NAME["zh"], "zh", "index", _index_page("zh", "首页", home_links))]
    for section, (lang, title) in sections.items():
        links = [(p.path, p.title) for p in pages if p.path.startswith(section)]
        index.append(DemoPage(section, base_url + section, title, lang, "index", _index_page(lang, title, links)))
    return index
