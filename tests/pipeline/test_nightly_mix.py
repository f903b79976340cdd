"""The nightly with mix targets mixes the whole published corpus each night: a source that arrives
only on the first night keeps its target share on the nights after, which publish, and a night
encodes only its own new documents (the others' tokens come from mix's cache)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from unittest import mock

import pyarrow.parquet as pq
from multi_source_inputs import write_sources
from pipeline_inputs import small_run_overrides, write_demo_warc

from corpus_pipeline import exit_codes
from corpus_pipeline.config import load_config
from corpus_pipeline.pipeline.nightly import NightlyLayout, run_nightly
from corpus_pipeline.pipeline.snapshots import current_snapshot
from corpus_pipeline.storage import Storage

TARGETS = {"news": 0.4, "web": 0.6}


def _no_session(*args, **kwargs):
    raise AssertionError("a SparkSession was asked for under --runner local")


def _night(data_root: Path, news: Path) -> int:
    sources = (
        f"pipeline.sources=[{{name: web, kind: warc, paths: ['{data_root / 'crawls'}']}},"
        f" {{name: news, kind: jsonl, paths: ['{news}'], domain: news}}]"
    )
    targets = ", ".join(f"{group}: {share}" for group, share in TARGETS.items())
    overrides = [*small_run_overrides(data_root), sources, "quality.gates.min_documents=100000"]
    config = load_config(None, [*overrides, f"mix.targets={{{targets}}}"])
    with mock.patch("corpus_pipeline.engine.exec.session.get_spark", _no_session):
        return run_nightly(config, "local", log=lambda line: None)


def _rows(folder: str) -> int:
    return sum(pq.ParquetFile(p).metadata.num_rows for p in Path(folder).glob("part-*.parquet"))


def _shares_of_the_shards(snapshot) -> dict[str, float]:
    """Shard tokens (text tokens + the end-of-document token) per source, from documents.parquet."""
    tokens: Counter[str] = Counter()
    for shards in snapshot.shard_dirs():
        for row in pq.read_table(Path(shards) / "documents.parquet", columns=["source", "token_count"]).to_pylist():
            tokens[row["source"]] += row["token_count"] + 1
    return {source: count / sum(tokens.values()) for source, count in tokens.items()}


def test_a_source_that_arrives_only_on_the_first_night_keeps_its_share_of_the_published_corpus(tmp_path):
    layout, storage = NightlyLayout(tmp_path), Storage()
    news = write_sources(tmp_path / "inputs")["news"]  # one file, there from the first night on
    for night in range(3):
        write_demo_warc(tmp_path / "crawls" / f"night-{night}.warc.gz", seed=night)
        assert _night(tmp_path, news) == exit_codes.SUCCESS, layout.history.read_text()
        snapshot = current_snapshot(layout.corpus, storage)
        assert len(snapshot.info["increments"]) == night + 1

        # The published shards are one mix, of every increment's documents, at the targets.
        [shards] = snapshot.shard_dirs()
        manifest = json.loads((Path(shards) / "manifest.json").read_text())
        assert snapshot.info["shards_of"] == "corpus" and snapshot.info["tokens"] == manifest["tokens"]
        shares = _shares_of_the_shards(snapshot)
        assert shares.keys() == TARGETS.keys()
        for group, target in TARGETS.items():
            assert abs(shares[group] - target) < 0.02, (night, shares)
            assert abs(manifest["mix"]["groups"][group]["achieved"] - target) < 0.02

        # Only the night's new documents were encoded; the published ones came from the cache.
        stats = Path(snapshot.info["increments"][-1]["tokens_dir"]) / "_stats.json"
        encoding = json.loads(stats.read_text())["extra"]["encoding"]
        published = [_rows(documents) for documents in snapshot.document_dirs()]
        assert encoding.get("encoded_documents", 0) == published[-1] > 0
        assert encoding.get("cached_documents", 0) == sum(published[:-1])
        assert snapshot.info["documents"] == sum(published)

    history = [json.loads(line) for line in layout.history.read_text().splitlines()]
    assert [entry["status"] for entry in history] == ["published"] * 3
    record = json.loads((tmp_path / "runs" / history[-1]["run_id"] / "run_record.json").read_text())
    assert record["nightly"]["new_inputs_by_source"] == {"web": 1}  # news sat the last two nights out
