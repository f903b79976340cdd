"""The report's document examples show each one's `metadata` (the ingested record's other fields):
compact, with PII replaced, HTML-escaped; nothing for a document without."""

from __future__ import annotations

from stage_fixtures import write_stage

from corpus_pipeline.pii.config import PiiConfig
from corpus_pipeline.report.examples import Redactor, stage_examples
from corpus_pipeline.report.html_corpus import example_group
from corpus_pipeline.report.run_dir import read_stage

EMAIL = "ana.lima@example.org"


def test_examples_show_their_metadata_compact_redacted_and_escaped(tmp_path):
    rows = [
        {"id": "a", "text": "First document.", "metadata": f'{{"score": 0.5, "note": "<b>x</b>", "by": "{EMAIL}"}}'},
        {"id": "b", "text": "Second document.", "metadata": None},
        {"id": "c", "text": "Third document.", "metadata": "not json {"},
    ]
    stage = read_stage(write_stage(tmp_path / "ingest", rows, parts=1), "ingest")
    (kept,) = [g for g in stage_examples(stage, Redactor(PiiConfig(), 200), 5) if g.title == "kept"]
    shown = {e.id: e.metadata for e in kept.examples}
    assert shown == {"a": '{"score":0.5,"note":"<b>x</b>","by":"<EMAIL>"}', "b": "", "c": "not json {"}
    html = example_group(kept)
    assert html.count("metadata: ") == 2 and EMAIL not in html
    assert "metadata: {&quot;score&quot;:0.5,&quot;note&quot;:&quot;&lt;b&gt;x&lt;/b&gt;&quot;" in html


def test_long_metadata_is_cut_like_a_text():
    redactor = Redactor(PiiConfig(), 200)
    example = redactor.example({"id": "x", "text": "t", "metadata": '{"tags": ["' + "a" * 1000 + '"]}'})
    assert len(example.metadata) == 301 and example.metadata.endswith("\u2026")
