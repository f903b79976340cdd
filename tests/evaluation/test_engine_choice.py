"""The default extraction engine follows the rule (issue 37): the cheapest engine within 0.005 F1 of
the best on the gold pages, from the figures benchmarks/extract_engines_compare.py recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus_pipeline.evaluation.engine_choice import EngineFigures, default_engine
from corpus_pipeline.extract.config import ExtractConfig

RECORD = Path(__file__).parents[2] / "benchmarks" / "data" / "extract_engines.json"


def test_the_cheapest_engine_within_the_tolerance_is_chosen():
    figures = {
        "best": EngineFigures(f1=0.921, chinese_f1=0.906, cpu_s=34.4),
        "close": EngineFigures(f1=0.9165, chinese_f1=0.90, cpu_s=22.5),
        "cheap": EngineFigures(f1=0.855, chinese_f1=0.80, cpu_s=3.0),
    }
    assert default_engine(figures) == "close"
    figures["close"] = EngineFigures(f1=0.9155, chinese_f1=0.90, cpu_s=22.5)  # 0.0055 below: too far
    assert default_engine(figures) == "best"


def test_no_figures_is_an_error():
    with pytest.raises(ValueError, match="no engine"):
        default_engine({})


def test_the_configured_default_is_the_engine_the_recorded_figures_choose():
    record = json.loads(RECORD.read_text(encoding="utf-8"))
    figures = {name: EngineFigures(**each) for name, each in record["engines"].items()}
    assert set(figures) == {"trafilatura", "resiliparse", "hybrid"}
    assert ExtractConfig().engine == default_engine(figures), record
