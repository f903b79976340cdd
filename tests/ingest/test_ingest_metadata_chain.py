"""The metadata column goes through the document stages unchanged (dedup, a Spark job, too: it
reads and writes every column; checked by hand, 29 s, left out here for time)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
from ingest_inputs import write_jsonl
from stage_fixtures import real_documents

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_fused


def test_metadata_survives_langid_normalize_pii_quality_and_decontaminate(tmp_path):
    docs = real_documents(english=20, chinese=20)
    records = [
        {"id": f"k{n}", "text": d["text"], "url": d["url"], "score": n, "tags": {"a": [n]}} for n, d in enumerate(docs)
    ]
    source = write_jsonl(tmp_path / "d.jsonl", records)
    config, executor = PipelineConfig(), LocalExecutor()
    first = ["ingest", "langid", "normalize"]
    run_fused(first, [str(source)], [tmp_path / name for name in first], config, executor)
    last = ["pii", "quality", "decontaminate"]
    results = run_fused(last, tmp_path / "normalize", [tmp_path / name for name in last], config, executor)
    out = pq.read_table(results[-1].output, columns=["id", "metadata"]).to_pylist()
    by_id = {f"k{n}": r for n, r in enumerate(records)}
    assert len(out) > 30
    assert all(
        json.loads(row["metadata"]) == {"score": by_id[row["id"]]["score"], "tags": by_id[row["id"]]["tags"]}
        for row in out
    )
