"""`corpus-pipeline eval quality --labels FILE`: per rule and language, spam kept and ordinary dropped."""

from __future__ import annotations

import json

import pytest

from corpus_pipeline.cli import main
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.quality.evaluate import CHAIN, evaluate_quality

ORDINARY_EN = (
    "The council met on Monday and voted to build a new library for the town. The vote was close, and the "
    "mayor said the work would start in the spring of next year. Residents have asked for a library for more "
    "than a decade, and the old one closed in 2015 after a flood damaged the building and most of its books."
)
SHORT = "buy cheap pills online now"  # five words: under gopher_word_count's 50


def _write(tmp_path, records) -> str:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_tallies_per_rule_and_language(tmp_path):
    labels = _write(
        tmp_path,
        [
            {"text": ORDINARY_EN, "label": "ordinary", "language": "en"},
            {"text": SHORT, "label": "spam", "language": "en"},
            {"text": ORDINARY_EN, "label": "bad", "language": "en"},  # spam that passes every rule
            {"text": SHORT, "label": "good", "language": "de"},  # an ordinary document dropped
        ],
    )
    report = evaluate_quality(labels, PipelineConfig())
    chain_en, chain_de = report.tallies[CHAIN]["en"], report.tallies[CHAIN]["de"]
    assert (chain_en.spam, chain_en.spam_kept, chain_en.ordinary, chain_en.ordinary_dropped) == (2, 1, 1, 0)
    assert (chain_de.ordinary, chain_de.ordinary_dropped) == (1, 1)
    words = report.tallies["gopher_word_count"]["all"]
    assert (words.spam_dropped, words.ordinary_dropped) == (1, 1)
    assert report.tallies["c4_curly_bracket_lines"]["all"].spam_dropped == 0
    table = report.format_table()
    assert "gopher_word_count" in table and "c4_curly_bracket_lines" not in table  # drops nothing here
    assert report.to_dict()["rules"][CHAIN]["all"]["spam_kept"] == 1


def test_a_bad_label_names_its_line(tmp_path):
    labels = _write(tmp_path, [{"text": "x", "label": "spam"}, {"text": "y", "label": "maybe"}])
    with pytest.raises(ValueError, match=r"labels.jsonl:2: label 'maybe'"):
        evaluate_quality(labels, PipelineConfig())


def test_the_cli_verb_prints_the_table_and_json(tmp_path, capsys):
    labels = _write(tmp_path, [{"text": ORDINARY_EN, "label": "ordinary", "language": "en"}])
    assert main(["eval", "quality", "--labels", labels, "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert any(line.startswith(CHAIN) for line in out)
    assert json.loads(out[-1])["documents"] == 1
