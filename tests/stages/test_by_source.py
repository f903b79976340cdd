"""BySourceStage: one stage, a different config for some sources' rows (pipeline.sources overrides)."""

from __future__ import annotations

import pickle

import pyarrow.parquet as pq

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.registry import stage_spec
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stage_runner import build_stage
from corpus_pipeline.stages.by_source import BySourceStage
from corpus_pipeline.stats import StageStats

SOURCES = (
    "pipeline.sources=[{name: web, kind: warc, paths: [a.warc.gz]},"
    ' {name: wiki, kind: wikipedia, paths: [w.xml.bz2], overrides: ["quality.rules.gopher_word_count.min=3"]},'
    " {name: news, kind: jsonl, paths: [n.jsonl], skip: [pii]}]"
)
# Five words: under the default Gopher minimum of 50 words, over wiki's own minimum of 3.
SHORT = "The river rises in spring."


def test_each_row_gets_its_sources_bounds_and_a_skipping_source_passes_unchanged():
    config = load_config(None, [SOURCES])
    quality = build_stage(stage_spec("quality"), config)
    pii = build_stage(stage_spec("pii"), config)
    assert isinstance(quality, BySourceStage) and sorted(quality.by_source) == ["wiki"]
    assert isinstance(pii, BySourceStage) and pii.by_source == {"news": None}
    quality.setup()

    rows = [{"id": s, "text": SHORT, "language": "en", "source": s} for s in ("web", "wiki", None)]
    verdicts = quality.process_batch([dict(row) for row in rows], StageStats("quality"))
    reasons = [None if v is None else v.reason for v in verdicts]
    # web and a row of no source: the run's bound; wiki passes it (another rule may still drop it).
    assert reasons[0] == reasons[2] == "gopher_word_count" and reasons[1] != "gopher_word_count"

    # Pickled to Spark executors with the chain: each instance keeps its own config.
    assert pickle.loads(pickle.dumps(quality)).by_source["wiki"].config == quality.by_source["wiki"].config

    text = "write to jane.doe@example.com"
    docs = [{"id": s, "text": text, "source": s} for s in ("web", "news")]
    pii.setup()
    pii.process_batch(docs, StageStats("pii"))
    assert "<EMAIL>" in docs[0]["text"] and docs[1]["text"] == text  # news skips pii: unchanged


def test_a_source_override_is_part_of_the_stage_fingerprint_and_no_override_keeps_the_plain_stage():
    plain = build_stage(stage_spec("quality"), load_config(None, []))
    assert isinstance(plain, QualityStage)
    stricter = SOURCES.replace("min=3", "min=4")
    fingerprints = {
        build_stage(stage_spec("quality"), load_config(None, [sources])).config_fingerprint()
        for sources in (SOURCES, stricter)
    }
    assert len(fingerprints) == 2 and plain.config_fingerprint() not in fingerprints
    assert not isinstance(build_stage(stage_spec("normalize"), load_config(None, [SOURCES])), BySourceStage)


def test_a_source_that_overrides_blocklists_writes_its_blocklist_columns(tmp_path):
    """The stage writes the union of every instance's columns: wiki's own list's counts on wiki's
    rows (null on the others), the run's lists on every row."""
    from stage_fixtures import real_documents, write_stage

    from corpus_pipeline.engine.exec.local import LocalExecutor
    from corpus_pipeline.stage_runner import run_stage

    words = tmp_path / "river_words.txt"
    words.write_text("the\nand\n", encoding="utf-8")  # in nearly every English document
    own_list = f"{{name: river_words, kind: keywords, path: '{words}', languages: [en], max_per_1000_chars: 1000.0}}"
    sources = SOURCES.replace('"quality.rules.gopher_word_count.min=3"', f'"quality.blocklists=[{own_list}]"')
    config = load_config(None, [sources])
    docs = [{**doc, "source": "wiki" if n % 2 else "web"} for n, doc in enumerate(real_documents(12, 0, 12))]
    documents = write_stage(tmp_path / "in", docs, parts=2)
    result = run_stage("quality", documents, tmp_path / "quality", config, LocalExecutor())

    rows = []
    for part in sorted(result.output.rglob("*.parquet")):  # kept parts and every _rejected/ file
        table = pq.read_table(part)
        assert {"blocklist_river_words", "blocklist_adult_domains"} <= set(table.column_names), part
        rows += table.select(["source", "blocklist_river_words", "blocklist_adult_domains"]).to_pylist()
    assert len(rows) == len(docs)
    assert all(row["blocklist_river_words"] > 0 for row in rows if row["source"] == "wiki")
    assert all(row["blocklist_river_words"] is None for row in rows if row["source"] == "web")
    assert all(row["blocklist_adult_domains"] is None for row in rows if row["source"] == "wiki")
    assert all(row["blocklist_adult_domains"] == 0 for row in rows if row["source"] == "web")
