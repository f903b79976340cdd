"""Cost per document as the corpus grows: ingest -> langid -> normalize -> dedup -> quality ->
tokenize, each stage one `corpus-pipeline <stage> --runner local` process, on N documents; per stage
CPU µs per document it reads, peak RSS of its largest process, the growth exponent of its CPU
between sizes (1.0: linear), and dedup's recall on the planted near-duplicates.

The documents (dedup_corpus.py, seeded): the real pages of ../shared/data/dedup/web_docs.jsonl, then
unique mosaics of their lines, and PLANTED_SHARE of them planted copies of a recent one with 2-15 %
of the words edited; each copy, its source and their true word 5-gram Jaccard are recorded in
pairs.json beside docs.jsonl. Recall counts the copies with true Jaccard >= 0.8 (the threshold the
dedup benchmarks score, dedup_accuracy.py) whose copy and source both reach dedup: found when both
end in one duplicate cluster. Inputs and the tokenizer (a byte-level BPE of TOKENIZER_VOCAB trained
on the first TOKENIZER_DOCS documents, not measured) are made once into --work and reused.

CPU is the whole process tree's (tree_usage.py). Here (2 cores shared with other work, 2026-12-07),
10k documents took 1.5 min and 100k 15 min (2.5 of them making the input); 1M (--million) 67 min
here, with tests running beside it at times (16 of them making the 5.6 GB input; ~20 GB of disk).

    python benchmarks/run_all.py scale --work /tmp/bench-scale [--sizes 10000,100000] [--million]
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections import deque
from itertools import pairwise
from pathlib import Path

import harness
import pyarrow.parquet as pq
from common import REPO
from dedup_corpus import SOURCE_WINDOW, DedupCorpus
from harness import Results, Spec, option
from tree_usage import run_measured

from corpus_pipeline.dedup.shingles import document_shingles, jaccard

STAGES = ("ingest", "langid", "normalize", "dedup", "quality", "tokenize")
SIZES = (10_000, 100_000)
PLANTED_SHARE = 0.3  # the shape: 30 % planted near-duplicates
HIGH_JACCARD = 0.8
TOKENIZER_DOCS, TOKENIZER_VOCAB = 2_000, 8_000


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def write_input(corpus: DedupCorpus, count: int, directory: Path) -> Path:
    """docs.jsonl and pairs.json ([copy id, source id, true Jaccard]) for `count` documents, unless
    an earlier run left the same ones."""
    marker, documents = directory / "identity", directory / "docs.jsonl"
    if marker.exists() and marker.read_text() == corpus.identity(count):
        return documents
    directory.mkdir(parents=True, exist_ok=True)
    recent: dict[str, set[str]] = {}  # the shingles of the bases a copy may come from
    window: deque[str] = deque()
    pairs = []
    with documents.open("w", encoding="utf-8") as out:
        for item in corpus.documents(count):
            shingles = document_shingles(item.doc["text"], None, 5, 5)
            if item.source_id is None:
                recent[item.doc["id"]] = shingles
                window.append(item.doc["id"])
                if len(window) > SOURCE_WINDOW:
                    del recent[window.popleft()]
            else:
                pairs.append([item.doc["id"], item.source_id, jaccard(shingles, recent[item.source_id])])
            out.write(json.dumps(item.doc, ensure_ascii=False) + "\n")
    (directory / "pairs.json").write_text(json.dumps(pairs))
    marker.write_text(corpus.identity(count))
    return documents


def tokenizer_file(corpus: DedupCorpus, work: Path) -> Path:
    from corpus_pipeline.tokenize.bpe import save_tokenizer, train_bpe
    from corpus_pipeline.tokenize.config import TrainTokenizerConfig

    path = work / f"tokenizer-{TOKENIZER_VOCAB}.json"
    if not path.exists():
        texts = [item.doc["text"] for item in corpus.documents(TOKENIZER_DOCS)]
        batches = (texts[i : i + 1_000] for i in range(0, len(texts), 1_000))
        save_tokenizer(train_bpe(batches, TrainTokenizerConfig(vocab_size=TOKENIZER_VOCAB)), path)
    return path


def planted_recall(dedup_dir: Path, pairs: list[list]) -> dict:
    """Recall on the planted copies with true Jaccard >= HIGH_JACCARD that reached dedup."""
    cluster = {}
    for part in dedup_dir.rglob("*.parquet"):
        table = pq.read_table(part, columns=["id", "dup_cluster_id"])
        cluster.update(zip(table.column("id").to_pylist(), table.column("dup_cluster_id").to_pylist(), strict=True))
    scored = [
        (copy, source) for copy, source, true in pairs if true >= HIGH_JACCARD and {copy, source} <= cluster.keys()
    ]
    found = sum(cluster[copy] == cluster[source] for copy, source in scored)
    return {"pairs": len(scored), "found": found, "recall": round(found / len(scored), 4) if scored else None}


def run_size(count: int, corpus: DedupCorpus, work: Path, tokenizer: Path) -> dict:
    folder = work / str(count)
    source = write_input(corpus, count, folder / "input")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    stages, previous = {}, source
    for stage in STAGES:
        output = folder / stage
        command = [sys.executable, "-m", "corpus_pipeline.cli", stage, "--input", str(previous)]
        command += ["--output", str(output), "--runner", "local"]
        if stage == "tokenize":
            command += ["--tokenizer", str(tokenizer)]
        usage = run_measured(command, folder / f"{stage}.log", env)
        if usage.returncode:
            raise SystemExit(f"{stage} at {count:,} failed ({usage.returncode}): see {folder / f'{stage}.log'}")
        docs_in = json.loads((output / "_stats.json").read_text())["docs_in"]
        stages[stage] = {"docs_in": docs_in, "cpu_s": round(usage.cpu_s, 2), "wall_s": round(usage.wall_s, 1)}
        stages[stage] |= {
            "us_per_doc": round(usage.cpu_s / max(docs_in, 1) * 1e6),
            "peak_rss_mb": round(usage.peak_rss_mb),
        }
        log(f"{count:,}: {stage} {stages[stage]}")
        previous = output
    recall = planted_recall(folder / "dedup", json.loads((folder / "input" / "pairs.json").read_text()))
    return {"documents": count, "stages": stages, "planted_recall": recall}


def growth(small: dict, large: dict) -> float:
    """The exponent k in cpu ~ docs^k between two runs of a stage."""
    return math.log(large["cpu_s"] / small["cpu_s"]) / math.log(large["docs_in"] / small["docs_in"])


def table(results: list[dict]) -> list[str]:
    sizes = [f"{r['documents']:,}" for r in results]
    header = f"{'stage':<10} {'µs/doc (' + ' / '.join(sizes) + ')':>34} {'peak RSS MB':>22} {'growth':>14}"
    lines = [header, "-" * len(header)]
    for stage in STAGES:
        runs = [r["stages"][stage] for r in results]
        us = " / ".join(f"{run['us_per_doc']:,}" for run in runs)
        rss = " / ".join(f"{run['peak_rss_mb']:,}" for run in runs)
        exponents = " / ".join(f"{growth(a, b):.2f}" for a, b in pairwise(runs)) or "-"
        lines.append(f"{stage:<10} {us:>34} {rss:>22} {exponents:>14}")
    total = " / ".join(f"{sum(s['cpu_s'] for s in r['stages'].values()) / r['documents'] * 1e6:,.0f}" for r in results)
    lines.append(f"{'all, per raw document':<24} {total:>20}")
    recalls = ", ".join(f"{r['documents']:,}: {r['planted_recall']}" for r in results)
    lines.append(f"planted near-duplicates (true Jaccard >= {HIGH_JACCARD}) found by dedup: {recalls}")
    return lines


def run(args, figures: Results) -> int:
    sizes = sorted({int(size) for size in args.sizes.split(",")} | ({1_000_000} if args.million else set()))
    # Before anything runs: every measured stage needs a fresh output; a size's input is reused.
    left = [str(path) for count in sizes for stage in STAGES if (path := args.work / str(count) / stage).exists()]
    if left:
        raise SystemExit(f"an earlier run's outputs are there: remove {' '.join(left)} (each size's input/ is kept)")
    corpus = DedupCorpus(seed=0, planted_share=PLANTED_SHARE)
    args.work.mkdir(parents=True, exist_ok=True)
    tokenizer = tokenizer_file(corpus, args.work)
    results = [run_size(count, corpus, args.work, tokenizer) for count in sizes]
    print("\n".join(table(results)))
    figures.details["runs"] = results
    for result in results:
        for stage, measured in result["stages"].items():
            case = f"{stage}, {result['documents']:,} documents, --runner local"
            figures.record(case, "cpu_us_per_doc", measured["us_per_doc"], "µs/doc")
            figures.record(case, "peak_rss_mb", measured["peak_rss_mb"], "MB")
    return 0


SPEC = Spec(
    "scale",
    __doc__,
    run,
    shared=("work",),
    options=(
        option("--sizes", default=",".join(map(str, SIZES)), help="document counts, comma-separated"),
        option("--million", action="store_true", help="add 1,000,000 documents to --sizes"),
    ),
    defaults={"work": Path("/tmp/bench-scale")},
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
