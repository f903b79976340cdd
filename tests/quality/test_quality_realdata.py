"""The done-means checks: clean text kept (real news, en and zh), junk dropped (the generated set),
and the per-rule drop report on the real pages, printed (run with -s to read it)."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT, shared_data
from quality_junk_corpus import KINDS, junk_documents

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import empty_document
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stats import StageStats

_SENTENCE_MARK = re.compile(r"[。！？]")
MIN_ARTICLE_BODY_CHARS = 200  # as demo/sources.py: shorter "articles" are photo captions
MIN_ABC_WORDS = 80  # ABC items are grouped into pages of at least this many words


def peoples_daily_articles(path: Path) -> list[str]:
    """Title lines then body lines (long, or holding a full stop), as demo/sources.py reads them."""
    articles, title, body = [], [], []

    def finish() -> None:
        if body and sum(map(len, body)) >= MIN_ARTICLE_BODY_CHARS:
            articles.append("\n".join(title + body))

    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text:
            continue
        if len(text) >= 60 or _SENTENCE_MARK.search(text) or text.endswith(("：", "；", "…")):
            body.append(text)
            continue
        if body:
            finish()
            title.clear()
            body.clear()
        title.append(text)
    finish()
    return articles


def abc_pages(path: Path) -> list[str]:
    """Blank-line separated items (a headline and its sentences), grouped into pages of at least
    MIN_ABC_WORDS words: an item alone is often shorter than Gopher's 50-word minimum. The file is
    Latin-1 (NLTK's copy), not UTF-8."""
    pages, current = [], []
    for block in path.read_text(encoding="latin-1").split("\n\n"):
        if block.strip():
            current.append(block.strip())
        if sum(len(b.split()) for b in current) >= MIN_ABC_WORDS:
            pages.append("\n".join(current))
            current = []
    return pages


def rejected(stage: QualityStage, texts: list[str], language: str) -> Counter:
    reasons: Counter = Counter()
    for index, text in enumerate(texts):
        verdict = stage.process(empty_document(id=str(index), text=text, language=language), StageStats("quality"))
        reasons[verdict.reason if verdict else "kept"] += 1
    return reasons


@pytest.mark.realdata
def test_clean_news_is_kept():
    stage = QualityStage()
    chinese = peoples_daily_articles(shared_data("text/zh_peoples_daily_199801.txt"))
    english = abc_pages(shared_data("text/en_abc_news.txt"))
    zh, en = rejected(stage, chinese, "zh"), rejected(stage, english, "en")
    kept = (zh["kept"] + en["kept"]) / (len(chinese) + len(english))
    print(f"\nclean kept: {kept:.4f} (zh {zh['kept']}/{len(chinese)}, en {en['kept']}/{len(english)})")
    print(f"zh drops: {dict((zh - Counter(kept=zh['kept'])).most_common())}")
    print(f"en drops: {dict((en - Counter(kept=en['kept'])).most_common())}")
    assert len(chinese) > 2_000 and len(english) > 2_000
    assert kept >= 0.95 and zh["kept"] / len(chinese) >= 0.95 and en["kept"] / len(english) >= 0.95


def test_generated_junk_is_dropped():
    stage = QualityStage()
    documents = junk_documents(seed=0, per_kind=15)
    by_kind: dict[str, Counter] = {kind: Counter() for kind in KINDS}
    for index, (kind, language, text) in enumerate(documents):
        doc = empty_document(id=str(index), text=text, language=language)
        verdict = stage.process(doc, StageStats("quality"))
        by_kind[kind][verdict.reason if verdict else "KEPT"] += 1
    dropped = sum(sum(c.values()) - c["KEPT"] for c in by_kind.values()) / len(documents)
    print(f"\njunk dropped: {dropped:.4f} of {len(documents)}")
    for kind, reasons in by_kind.items():
        print(f"  {kind}: {dict(reasons.most_common())}")
    assert dropped >= 0.90
    assert all(reasons["KEPT"] <= 0.2 * sum(reasons.values()) for reasons in by_kind.values())


@pytest.mark.realdata
def test_drop_report_on_the_real_pages():
    web_docs = shared_data("dedup/web_docs.jsonl")  # where CORPUS_TEST_DATA says, not the benchmarks' default
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    from quality_drop_report import drop_report, format_report

    with open(web_docs, encoding="utf-8") as lines:
        docs = [json.loads(line) for line in lines][:300]
    report = drop_report(docs, PipelineConfig(), examples=2, chars=120)
    print("\n" + format_report(report))
    assert report["kept"] + sum(report["dropped"].values()) == len(docs)
    assert 0.5 < report["kept"] / len(docs) < 0.98  # real pages: most kept, some debris dropped
