"""Dedup throughput: MinHash signatures (ours in numpy vs datasketch on the same shingles) and the
whole Spark dedup stage, on N documents made from web_docs.jsonl plus edited copies.

    python benchmarks/bench_dedup.py --docs 20000 [--master local[2]] [--memory 4g]
    python benchmarks/bench_dedup.py --quick        # 2,000 documents, a smoke run

The scale run (10k, 100k, 1M documents) is this script with --docs; it prints wall seconds and the
peak resident memory of the Python driver (the JVM's is not measured here: read it from the Spark UI
or `ps` while it runs).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

from datasketch import MinHash

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from corpus_pipeline.config import PipelineConfig, SparkConfig  # noqa: E402
from corpus_pipeline.dedup.minhash import shingle_hash, signature  # noqa: E402
from corpus_pipeline.dedup.plant import edited_copy  # noqa: E402
from corpus_pipeline.dedup.shingles import document_shingles  # noqa: E402
from corpus_pipeline.dedup.staging import write_documents_stage  # noqa: E402

WEB_DOCS = REPO.parent / "shared" / "data" / "dedup" / "web_docs.jsonl"


def make_documents(count: int, seed: int = 0) -> list[dict]:
    """Real documents, then edited copies of them (each a new document) until `count`."""
    base = [json.loads(line) for line in WEB_DOCS.open(encoding="utf-8")]
    rng = random.Random(seed)
    pool = sorted({w for doc in base for w in doc["text"].split()})
    docs = [{"id": doc["id"], "text": doc["text"]} for doc in base[:count]]
    while len(docs) < count:
        original = rng.choice(base)
        docs.append({"id": f"gen{len(docs):08d}", "text": edited_copy(original["text"], False, pool, rng)})
    return docs


def signature_rates(docs: list[dict], num_perm: int) -> dict:
    shingled = [document_shingles(doc["text"], None, 5, 5) for doc in docs]
    started = time.perf_counter()
    for shingles in shingled:
        signature(shingles, num_perm, 1)
    ours = time.perf_counter() - started
    started = time.perf_counter()
    for shingles in shingled:
        reference = MinHash(num_perm=num_perm, seed=1, hashfunc=shingle_hash, scheme="legacy")
        reference.update_batch(list(shingles))
    theirs = time.perf_counter() - started
    return {"numpy_docs_per_s": len(docs) / ours, "datasketch_docs_per_s": len(docs) / theirs}


def spark_dedup(docs: list[dict], master: str, memory: str) -> dict:
    from corpus_pipeline.dedup.spark_job import run_dedup
    from corpus_pipeline.engine.session import get_spark

    conf = {"spark.driver.memory": memory, "spark.executor.memory": memory, "spark.ui.enabled": "false"}
    spark = get_spark(SparkConfig(master=master, conf=conf, log_level="ERROR"))
    with tempfile.TemporaryDirectory(prefix="bench-dedup-") as work:
        source = write_documents_stage(docs, Path(work) / "in", parts=8)
        started = time.perf_counter()
        result = run_dedup(source, Path(work) / "out", PipelineConfig(), spark)
        seconds = time.perf_counter() - started
    spark.stop()
    return {
        "seconds": seconds,
        "docs_per_s": len(docs) / seconds,
        "kept": result.stats.kept,
        "dropped": dict(result.stats.dropped),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--quick", action="store_true", help="2,000 documents")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--memory", default="4g", help="driver and executor memory")
    args = parser.parse_args()
    docs = make_documents(2_000 if args.quick else args.docs)
    report = {"documents": len(docs), "signatures": signature_rates(docs[:1000], 128)}
    report["spark_dedup"] = spark_dedup(docs, args.master, args.memory)
    # ru_maxrss is in KiB on Linux; the Python driver only (the JVM is a child process).
    report["driver_python_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
