"""The extract stage against 1,432 real pages with gold labels (measured with the default engine: F1 0.921,
Chinese 0.906; the overall floor is above the 0.910 the stage had before the engine option, the
Chinese one is issue 25's goal of 0.90)."""

import pytest
from conftest import shared_data

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.evaluation.commands import evaluate_extraction

pytestmark = [pytest.mark.realdata, pytest.mark.slow]  # 1,432 pages through trafilatura: ~35 s


def test_extraction_f1_on_all_gold_pages():
    report = evaluate_extraction(
        str(shared_data("web/pages.warc.gz")), str(shared_data("web/gold.jsonl")), load_config(), LocalExecutor()
    )
    print(report.format_table())
    assert report.overall.pages == 1432 and report.unknown_ids == 0
    assert report.overall.missing <= 10
    assert report.overall.f1 >= 0.915
    assert set(report.by_source) == {"trafilatura-eval", "scrapinghub-aeb", "magic-html"}
    assert report.chinese.pages >= 80 and report.chinese.f1 >= 0.90
    # no language with 20 or more pages below what the default engine gives (hybrid, 2026-12-07: de
    # 0.934, en 0.903, es 0.910, fr 0.953, pl 0.879; trafilatura alone: 0.935, 0.912, 0.892, 0.941,
    # 0.865), by more than one page's worth
    floors = {"de": 0.93, "en": 0.90, "es": 0.88, "fr": 0.92, "pl": 0.84}
    scores = {lang: round(report.by_language[lang].f1, 3) for lang in floors}
    assert all(scores[lang] >= floor for lang, floor in floors.items()), scores
