"""extract.engine: each engine through the stage, the config refusing an unknown one, and the
trafilatura engine's second passes (CJK pages, layout tables) on real pages."""

from __future__ import annotations

import pytest
from conftest import html_page, shared_data, write_warc
from pydantic import ValidationError

from corpus_pipeline.config import ExtractConfig
from corpus_pipeline.stages.extract import ExtractStage
from corpus_pipeline.stages.extract_engines import cjk_share, table_row_share, title_is_cjk
from corpus_pipeline.stats import StageStats

ARTICLE = "<p>" + "The committee approved the new river restoration plan after a long debate. " * 6 + "</p>"


def kept_texts(path, **config) -> list[str]:
    rows = list(ExtractStage(ExtractConfig(**config)).read(str(path), StageStats("extract")))
    return [row["text"] for row, verdict in rows if verdict is None]


@pytest.mark.parametrize("engine", ["trafilatura", "resiliparse"])
def test_each_engine_finds_the_article_and_drops_the_navigation(tmp_path, engine):
    warc = write_warc(
        tmp_path / "one.warc.gz",
        [{"url": "https://news.example/a", "payload": html_page(ARTICLE).encode(), "content_type": "text/html"}],
    )
    (text,) = kept_texts(warc, engine=engine)
    assert "river restoration plan" in text and "About" not in text


def test_an_unknown_engine_is_refused_by_the_config():
    with pytest.raises(ValidationError, match="engine"):
        ExtractConfig(engine="magic-html")


def test_the_signals_of_the_second_passes():
    assert cjk_share("国务院总理在北京主持召开常务会议 ok") > 0.8 and cjk_share("Die Sitzung 会议") < 0.3
    assert title_is_cjk("<html><head><title>人民日报 - 首页</title>") and not title_is_cjk("<title>News</title>")
    assert table_row_share("| Home | Shop |\n| 1位 | Bag |") == 1.0
    assert table_row_share("A paragraph of text.\n| a | b |") < 0.5


@pytest.mark.realdata
def test_japanese_shop_pages_keep_their_own_text_not_the_sidebar():
    """ClueWeb09's 29 Japanese shop pages: trafilatura alone gives every one the same sidebar ranking
    table (1 distinct text); the layout-table pass finds each product's description."""
    texts = kept_texts(shared_data("warc/clueweb09-ja-quirk.warc.gz"))
    assert len(texts) == 29
    assert len(set(texts)) >= 20
    assert sum("人気ランキング" in text for text in texts) < 10  # the sidebar's heading
    assert all(cjk_share(text) > 0.3 for text in texts)
