"""bench_scale.py's pieces: the process-tree measurement (CPU of a process nobody waits for, the peak of
the child itself), the recorded planted pairs, the recall on them, the growth exponent and the
refusal of an earlier run's outputs."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from bench_scale import growth, planted_recall, run, write_input  # noqa: E402
from dedup_corpus import DedupCorpus  # noqa: E402
from tree_usage import run_measured  # noqa: E402

from corpus_pipeline.dedup.shingles import document_shingles, jaccard  # noqa: E402

# A child that starts a grandchild burning ~0.6 CPU s, never waits for it, and exits after it.
UNWAITED = (
    "import subprocess, sys, time; "
    "subprocess.Popen([sys.executable, '-c', 'import time\\nend = time.process_time() + 0.6\\n"
    "while time.process_time() < end: pass']); time.sleep(1.2)"
)


def test_cpu_of_a_grandchild_nobody_waits_for_is_counted(tmp_path):
    usage = run_measured([sys.executable, "-c", UNWAITED], tmp_path / "log")
    assert usage.returncode == 0
    assert usage.cpu_s >= 0.55  # wait4 alone (what `time` reads) sees only the sleeping child


def test_peak_rss_is_the_child_s_own(tmp_path):
    ballast = bytearray(300 << 20)  # this process is large; the child's peak must not inherit it
    code = "import time; block = bytearray(150 << 20); block[::4096] = b'x' * len(block[::4096]); time.sleep(1)"
    usage = run_measured([sys.executable, "-c", code], tmp_path / "log")
    assert 150 <= usage.peak_rss_mb < 250, usage
    del ballast


@pytest.fixture()
def corpus(tmp_path) -> DedupCorpus:
    words = [f"w{i}" for i in range(6_000)]
    pages = [{"id": f"page-{p}", "text": " ".join(words[p * 300 : p * 300 + 300])} for p in range(20)]
    source = tmp_path / "pages.jsonl"
    source.write_text("".join(json.dumps(page) + "\n" for page in pages), encoding="utf-8")
    return DedupCorpus(seed=5, source=source, planted_share=0.3)


def test_inputs_record_each_planted_copy_with_its_true_jaccard(corpus, tmp_path):
    documents = write_input(corpus, 150, tmp_path / "in")
    texts = {doc["id"]: doc["text"] for doc in map(json.loads, documents.read_text().splitlines())}
    pairs = json.loads((tmp_path / "in" / "pairs.json").read_text())
    assert len(texts) == 150 and 25 <= len(pairs) <= 65  # 30 % of 150, give or take
    for copy, source, true in pairs:
        assert true == jaccard(*(document_shingles(texts[i], None, 5, 5) for i in (copy, source)))
    stamp = documents.stat().st_mtime_ns
    assert write_input(corpus, 150, tmp_path / "in") == documents and documents.stat().st_mtime_ns == stamp


def test_recall_counts_high_jaccard_pairs_that_reached_dedup(tmp_path):
    clusters = {"a": "a", "a2": "a", "b": "b", "b2": "b2", "c": "c", "c2": "c"}
    (tmp_path / "_rejected").mkdir()
    pq.write_table(
        pa.table({"id": list(clusters)[:4], "dup_cluster_id": list(clusters.values())[:4]}), tmp_path / "p.parquet"
    )
    rejected = pa.table({"id": ["c", "c2"], "dup_cluster_id": ["c", "c"]})
    pq.write_table(rejected, tmp_path / "_rejected" / "r.parquet")
    pairs = [["a2", "a", 0.9], ["b2", "b", 0.85], ["c2", "c", 0.5], ["d2", "d", 0.95]]
    # c2 is below the threshold, d2 never reached dedup: a found, b missed.
    assert planted_recall(tmp_path, pairs) == {"pairs": 2, "found": 1, "recall": 0.5}


def test_growth_is_the_exponent_of_cpu_in_documents():
    assert growth({"cpu_s": 2.0, "docs_in": 1_000}, {"cpu_s": 20.0, "docs_in": 10_000}) == pytest.approx(1.0)
    assert growth({"cpu_s": 2.0, "docs_in": 1_000}, {"cpu_s": 200.0, "docs_in": 10_000}) == pytest.approx(2.0)


def test_an_earlier_run_s_stage_outputs_are_named_before_anything_runs(tmp_path):
    (tmp_path / "1000" / "input").mkdir(parents=True)
    (tmp_path / "2000" / "dedup").mkdir(parents=True)
    args = argparse.Namespace(sizes="1000,2000", million=False, work=tmp_path)
    with pytest.raises(SystemExit, match=str(tmp_path / "2000" / "dedup")) as refused:
        run(args, figures=None)
    assert str(tmp_path / "1000" / "input") not in str(refused.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1000", "2000"]  # no tokenizer, no input made
