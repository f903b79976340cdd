"""`--limit N` and `--sample FRACTION`: a first look at a big dataset, the same records every run."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
from ingest_inputs import ingest, kept, write_jsonl

from corpus_pipeline.cli import main


def _files(tmp_path, sizes: list[int]) -> list:
    paths = []
    for number, size in enumerate(sizes):
        records = [{"id": f"f{number}-{k}", "text": f"text {number} {k}"} for k in range(size)]
        paths.append(write_jsonl(tmp_path / f"part-{number}.jsonl", records))
    return paths


def test_a_limit_takes_that_many_records_from_the_files_in_order(tmp_path, capsys):
    (tmp_path / "in").mkdir()
    _files(tmp_path / "in", [3, 1500, 40])
    out = tmp_path / "out"
    argv = ["ingest", "--input", str(tmp_path / "in"), "--output", str(out), "--runner", "local", "--limit", "1200"]
    assert main(argv) == 0
    ids = pq.read_table(out, columns=["id"]).column("id").to_pylist()
    assert ids == [f"f0-{k}" for k in range(3)] + [f"f1-{k}" for k in range(1197)]
    stats = json.loads((out / "_stats.json").read_text())
    assert stats["docs_in"] == 1200 == stats["kept"] and stats["extra"]["limit"]["files not read"] == 1


def test_a_sample_is_seeded_and_near_its_fraction(tmp_path):
    (source,) = _files(tmp_path, [4000])
    first = [r["id"] for r in kept(ingest([source], tmp_path / "a", "ingest.sample=0.25"), ["id"])]
    again = [r["id"] for r in kept(ingest([source], tmp_path / "b", "ingest.sample=0.25"), ["id"])]
    other = [
        r["id"] for r in kept(ingest([source], tmp_path / "c", "ingest.sample=0.25", "ingest.sample_seed=1"), ["id"])
    ]
    assert first == again and first != other
    assert 900 < len(first) < 1100 and 900 < len(other) < 1100  # 1,000 expected, sd ~27
    both = ingest([source], tmp_path / "d", "ingest.sample=0.5", "ingest.limit=1000")
    assert 430 < both.stats.kept < 570 and both.stats.docs_in == both.stats.kept
    assert both.stats.extra["sample"]["records left out"] == 1000 - both.stats.kept
