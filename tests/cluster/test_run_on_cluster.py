"""`corpus-pipeline run` on a real standalone cluster (a master and two workers of one core on
loopback, `spark-class` of the pip pyspark) with the input, the tokenizer and the whole run on
s3:// of the loopback S3 server writes what `--runner local` writes on local disk: every file of
every stage directory (benchmarks/run_outputs.py says how each is compared). The run is
benchmarks/bench_cluster.py's, on 200 of its documents: 47 s on two busy cores, nearly all of it
the cluster's fixed costs (the daemons' JVMs, the driver's, two executors')."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from conftest import shared_data

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from bench_cluster import compare_runners  # noqa: E402
from dedup_corpus import DedupCorpus  # noqa: E402

from corpus_pipeline.tokenize.bpe import save_tokenizer, train_bpe  # noqa: E402
from corpus_pipeline.tokenize.config import TrainTokenizerConfig  # noqa: E402

pytestmark = [pytest.mark.cluster, pytest.mark.spark, pytest.mark.slow, pytest.mark.realdata]

DOCUMENTS = 200


def test_run_on_a_cluster_with_the_run_on_s3_writes_what_one_process_writes(tmp_path):
    if shutil.which("java") is None:
        pytest.skip("no java on PATH: a standalone cluster cannot start")
    pytest.importorskip("moto.server", reason="moto[server] is not installed (make setup installs the dev extra)")
    corpus = DedupCorpus(seed=0, source=shared_data("dedup/web_docs.jsonl"))
    # A small vocabulary, trained in a second: what is compared is the shards, not their quality.
    texts = [item.doc["text"] for item in corpus.documents(DOCUMENTS)]
    tokenizer = tmp_path / "tokenizer.json"
    save_tokenizer(train_bpe([texts], TrainTokenizerConfig(vocab_size=600, min_frequency=1)), tokenizer)

    result = compare_runners(DOCUMENTS, tmp_path / "runs", corpus, tokenizer)

    # ingest, langid, normalize (the source's), dedup, pii, quality, decontaminate, tokens
    assert result["outputs"]["stages"] == 8
    assert result["outputs"]["differences"] == []
    assert result["outputs"]["files"] >= 2 * 8  # at least a part and _stats.json each
    # The executors ran on both workers (work/<worker>/<app>/<executor id>).
    spark = tmp_path / "runs" / "spark" / "work"
    assert {path.parent.parent.name for path in spark.glob("*/app-*/*")} == {"worker-0", "worker-1"}
