"""MediaWiki XML dumps (`pages-articles.xml.bz2`) -> one document per article: read as a stream
with `mwxml`, markup stripped with `mwparserfromhell`.

Redirects and pages outside the article namespace are rejected rows (`wiki_redirect`,
`not_an_article`). The text is the last revision's wikitext without templates, references,
tables, bold and italic quotes, file and category links; the url is the article's URL when the dump
names its site's base URL (`https://en.wikipedia.org/wiki/Anarchism`), else its title; the id `<dbname>:<page id>`
(`enwiki:12`), stable across dumps of the same wiki. mwparserfromhell parses ~0.7 MB of wikitext a
second (the 5.7 MB of gensim's 106 articles: 8.6 s), most of the stage's time on a dump.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

from corpus_pipeline.ingest.records import Records
from corpus_pipeline.ingest.streams import open_stream
from corpus_pipeline.stages.base import Drop
from corpus_pipeline.storage import Storage

ARTICLE_NAMESPACE = 0
# What MediaWiki leaves unescaped in article URLs (wfUrlencode): /wiki/Talk:A_(letter)
_URL_SAFE = ";:@$!*(),/~"
# Links to these namespaces show an image or file a category, not text (MediaWiki's ids).
_NON_TEXT_NAMESPACES = {-2: "Media", 6: "File", 14: "Category"}
_NON_TEXT_ALIASES = ("image",)  # File's old name, still valid in every wiki
# Tags whose content is no part of the article's prose: references, tables (cells are fragments),
# and those strip_code itself hides (galleries, math, code listings...).
_HIDDEN_TAGS = frozenset(
    {
        "ref",
        "references",
        "table",
        "gallery",
        "math",
        "pre",
        "nowiki",
        "syntaxhighlight",
        "source",
        "score",
        "timeline",
        "imagemap",
        "graph",
        "templatedata",
        "inputbox",
    }
)


def read_wikipedia(path: str, records: Records, storage: Storage) -> Iterator[None]:
    import mwxml

    with open_stream(path, storage) as stream:
        dump = mwxml.Dump.from_file(stream)
        site = dump.site_info
        prefix = _article_prefix(site.base)
        link_namespaces = _non_text_prefixes(site.namespaces)
        for page in dump:
            revision = None
            for revision in page:  # noqa: B007 - the last one: pages-articles dumps hold only that
                pass
            markup = (revision.text if revision is not None else None) or ""
            where = f"page {page.id}"
            url = prefix + quote(page.title.replace(" ", "_"), safe=_URL_SAFE) if prefix else page.title
            nbytes = len(markup.encode("utf-8"))
            if page.redirect:
                records.reject(where, Drop("wiki_redirect", f"{page.title} -> {page.redirect}"), url=url, nbytes=nbytes)
            elif page.namespace != ARTICLE_NAMESPACE:
                records.reject(where, Drop("not_an_article", f"namespace {page.namespace}"), url=url, nbytes=nbytes)
            else:
                date = revision.timestamp.long_format() if revision is not None and revision.timestamp else None
                doc_id = f"{site.dbname or 'wiki'}:{page.id}"
                text = plain_text(markup, link_namespaces)
                records.add(where, text, doc_id, url, date, site.dbname, nbytes=nbytes)
            yield


def plain_text(markup: str, link_namespaces: tuple[str, ...]) -> str:
    """The readable text of wikitext: mwparserfromhell's strip_code, applied node by node at every
    depth so that what strip_code keeps but readers never see goes: references, tables, file and
    category links (inside a tag too)."""
    import mwparserfromhell

    # Bold and italic quotes are left to the text: parsed as tags, one unbalanced '' (11 of gensim's
    # 106 articles have one) turns the rest of its paragraph into raw text, references and all.
    code = mwparserfromhell.parse(markup, skip_style_tags=True)
    text = _readable(code, link_namespaces).replace("'''", "").replace("''", "").strip("\n")
    while "\n\n\n" in text:  # as strip_code collapses the blank lines its removals leave
        text = text.replace("\n\n\n", "\n\n")
    return text.strip()


def _readable(code, link_namespaces: tuple[str, ...]) -> str:
    from mwparserfromhell.nodes import Tag, Wikilink
    from mwparserfromhell.wikicode import Wikicode

    parts = []
    for node in code.nodes:
        if isinstance(node, Tag):
            if str(node.tag).strip().lower() not in _HIDDEN_TAGS and node.contents is not None:
                parts.append(_readable(node.contents, link_namespaces))
        elif isinstance(node, Wikilink):
            if not str(node.title).strip().lower().startswith(link_namespaces):
                parts.append(Wikicode([node]).strip_code(collapse=False))
        else:
            parts.append(Wikicode([node]).strip_code(collapse=False))
    return "".join(parts)


def _non_text_prefixes(namespaces) -> tuple[str, ...]:
    names = {name.lower() for name in _NON_TEXT_NAMESPACES.values()} | set(_NON_TEXT_ALIASES)
    names |= {ns.name.lower() for ns in namespaces or () if ns.id in _NON_TEXT_NAMESPACES and ns.name}
    return tuple(f"{name}:" for name in sorted(names))


def _article_prefix(base: str | None) -> str | None:
    # siteinfo's base is the main page's URL: https://en.wikipedia.org/wiki/Main_Page
    return base.rsplit("/", 1)[0] + "/" if base and "/" in base else None
