"""BySourceStage: one stage, a different config for some sources' rows (pipeline.sources overrides)."""

from __future__ import annotations

import pickle

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.registry import stage_spec
from corpus_pipeline.engine.run import build_stage
from corpus_pipeline.quality.stage import QualityStage
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
