"""`eval decontamination` on the real pages and People's Daily: the issue's goals on a sample
(recall >= 0.95 on planted items, under 0.5 % of clean documents touched)."""

from __future__ import annotations

import json

import pytest
from conftest import shared_data

from corpus_pipeline.cli import main
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.decontam.evaluate import evaluate_decontamination

pytestmark = pytest.mark.realdata


def test_planted_items_are_found_under_every_edit_and_clean_pages_stay_untouched():
    pages = shared_data("dedup/web_docs.jsonl").read_text(encoding="utf-8").splitlines()
    chinese = shared_data("text/zh_peoples_daily_199801.txt").read_text(encoding="utf-8").splitlines()
    web_docs = [json.loads(line) for line in pages[:500]]
    report = evaluate_decontamination(web_docs, chinese[:8000], PipelineConfig(), seed=3, chinese_count=60)
    by_kind = {(s.eval_set, s.kind): s for s in report.scores}
    assert report.recall() >= 0.95 and report.false_positive_rate < 0.005, report.format_table()
    assert all(s.recall == 1.0 for (_, kind), s in by_kind.items() if kind != "answer_only"), report.format_table()
    # Where n-grams miss: one-line HumanEval solutions (3-7 words) have no n-gram of their own.
    answers = by_kind["humaneval", "answer_only"]
    assert 0.85 <= answers.recall < 1.0 and "words)" in answers.misses[0]


def test_the_eval_verb_prints_the_table_and_the_figures(tmp_path, capsys):
    docs = tmp_path / "docs.jsonl"
    docs.write_text("\n".join(shared_data("dedup/web_docs.jsonl").read_text(encoding="utf-8").splitlines()[:50]))
    chinese = tmp_path / "zh.txt"
    chinese.write_text("\n".join(shared_data("text/zh_peoples_daily_199801.txt").read_text("utf-8").splitlines()[:800]))
    argv = ["eval", "decontamination", "--docs", str(docs), "--chinese", str(chinese), "--chinese-items", "10"]
    assert main([*argv, "--json"]) in (0, 1)
    out = capsys.readouterr().out
    figures = json.loads(out.strip().splitlines()[-1])
    assert "recall over every planted item" in out
    assert set(figures["recall_by_set"]) == {"humaneval", "zh_peoples_daily"}
