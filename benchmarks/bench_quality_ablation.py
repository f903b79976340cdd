"""Does the embedding quality score help a model? Issue 24, item 5, through `corpus-pipeline
ablate`'s own machinery (train/ablate.py): the tiny model trained on the web pages of the top
quality tier (B) against a seeded random subset of the same pages with the same token count (A),
both for the same steps and seed, held-out loss on reference text neither corpus holds.

    python benchmarks/run_all.py quality-ablation [--data ../shared/data] [--min-score 0.5] [--steps 150]
        [--seeds 0 1 2] [--head HEAD.npz] [--scores FILE] [--work DIR] [--output FILE]

Corpus: the 1,432 extracted benchmark pages (shared/data/dedup/web_docs.jsonl), scored by the
head (`quality_score`). Held out: gensim's 300 ABC news articles (lee_background.cor), which the
shipped head was not trained on. One BPE tokenizer, trained on the corpus, makes all three shard
sets. One random subset per --seeds value (the spread of A over subsets is the noise B's gain is
read against). Prints both curves (held-out loss per evaluation step) and the seeds of each run.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import harness
import numpy as np
import torch
from harness import Results, Spec, UsageError, option
from tokenizers import Tokenizer

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.demo.sources import package_file
from corpus_pipeline.document import empty_document
from corpus_pipeline.embeddings.quality_head import SHIPPED_HEAD
from corpus_pipeline.embeddings.quality_score import QualityScorer
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.train.ablate import ablate
from corpus_pipeline.train.config import load_train_config
from corpus_pipeline.train.distributed import setup_distributed

HELD_OUT_NEWS = ("gensim", "test/test_data/lee_background.cor")
# 1,024 ids: the tiny model's embedding and output layers stay small on CPU (a 50k vocabulary
# would be 95% of its parameters), and BPE still learns whole English words.
VOCAB = 1024


def web_documents(data: Path) -> list[dict]:
    path = data / "dedup" / "web_docs.jsonl"
    if not path.is_file():
        sys.exit(f"real data not available: {path} (see ../shared/data/README.md)")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [empty_document(id=r["id"], text=r["text"], url=r.get("url"), source="web", domain="web") for r in rows]


def held_out_documents() -> list[dict]:
    articles = package_file(*HELD_OUT_NEWS).read_text(encoding="utf-8").splitlines()
    return [
        empty_document(id=f"lee:{n}", text=text.strip(), source="news", domain="news")
        for n, text in enumerate(articles)
        if text.strip()
    ]


def token_counts(documents: list[dict], tokenizer: Path) -> np.ndarray:
    encoded = Tokenizer.from_file(str(tokenizer)).encode_batch([doc["text"] for doc in documents])
    return np.array([len(e.ids) + 1 for e in encoded])  # + the end-of-document token, as in the shards


def same_tokens_subset(counts: np.ndarray, target: int, seed: int) -> np.ndarray:
    """Indices of documents in a seeded random order until their tokens reach `target`, sorted."""
    order = np.random.default_rng(seed).permutation(len(counts))
    reached = np.searchsorted(np.cumsum(counts[order]), target) + 1
    return np.sort(order[:reached])


def run(args, results: Results) -> int:
    torch.set_num_threads(1)  # two threads on two shared cores spin-wait (tests/train/train_fixtures.py)

    documents = web_documents(args.data)
    score_cpu = score_documents(documents, args.head, args.scores)
    tier = [doc for doc in documents if doc["quality_score"] >= args.min_score]
    if not tier or len(tier) == len(documents):
        raise UsageError(
            f"--min-score {args.min_score}: the tier holds {len(tier)} of {len(documents)} pages, nothing to compare"
        )
    with tempfile.TemporaryDirectory(prefix="quality-ablation-") as scratch:
        figures = run_ablations(documents, tier, args, args.work or Path(scratch))
    figures.update(head=str(args.head), min_score=args.min_score, cpu_seconds_scoring=round(score_cpu, 1))
    print(
        f"pages scored: {len(documents)}; tier quality_score >= {args.min_score}: {len(tier)} pages, "
        f"{figures['tier_tokens']:,} tokens; same model ({figures['parameters']:,} parameters), "
        f"{figures['training_tokens_each']:,} training tokens each run"
    )
    for run in figures["runs"]:
        print(
            f"A: random subset (subset seed {run['subset_seed']}, {run['random_pages']} pages, "
            f"{run['random_tokens']:,} tokens; train seed {run['train_seed']}) | B: tier (train seed "
            f"{run['train_seed']}): held-out loss A {run['val_loss_a_random']:.4f}, B {run['val_loss_b_tier']:.4f}, "
            f"B - A {run['val_loss_b_tier'] - run['val_loss_a_random']:+.4f}"
        )
        print("  step  held-out loss A (random)  B (tier)")
        for (step, loss_a), (_, loss_b) in zip(run["curve_a_random"], run["curve_b_tier"], strict=True):
            print(f"  {step:>4}  {loss_a:>22.4f}  {loss_b:>8.4f}")
    print(f"CPU seconds: scoring {score_cpu:.1f}, training {figures['cpu_seconds_training']:.1f}")
    results.details.update(figures)
    for run in figures["runs"]:
        case = f"held-out loss, train seed {run['train_seed']}, subset seed {run['subset_seed']}"
        results.record(f"{case}, A (random subset)", "val_loss", run["val_loss_a_random"], "nats/token")
        ratio = run["val_loss_b_tier"] / run["val_loss_a_random"]
        results.record(
            f"{case}, B (tier)", "val_loss", run["val_loss_b_tier"], "nats/token", ratio, "A (random subset)"
        )
    return 0


def score_documents(documents: list[dict], head: Path, saved: Path | None) -> float:
    """Fill each document's quality_score (from `saved`, id -> score, when it exists; else scored and
    written there); the CPU seconds scoring took."""
    if saved is not None and saved.is_file():
        scores = json.loads(saved.read_text(encoding="utf-8"))
        for doc in documents:
            doc["quality_score"] = scores[doc["id"]]
        return 0.0
    started = time.process_time()
    values = QualityScorer.load(head, "auto").scores([doc["text"] for doc in documents]).tolist()
    for doc, score in zip(documents, values, strict=True):
        doc["quality_score"] = score
    if saved is not None:
        saved.write_text(json.dumps({doc["id"]: doc["quality_score"] for doc in documents}), encoding="utf-8")
    return time.process_time() - started


def run_ablations(documents: list[dict], tier: list[dict], args, work: Path) -> dict:
    """One tokenizer for all, the tier's and the held-out shards, then per subset seed one ablation."""
    config = PipelineConfig.model_validate({"train_tokenizer": {"vocab_size": VOCAB}})

    def shards(name: str, rows: list[dict], tokenizer: Path) -> Path:
        docs = publish_rows(work / f"{name}_docs", [rows], stage="bench")
        return run_stage("tokenize", docs, work / f"{name}_tokens", config, LocalExecutor(), tokenizer=tokenizer).output

    corpus = publish_rows(work / "corpus", [documents], stage="bench")
    tokenizer = run_stage("train-tokenizer", corpus, work / "tokenizer", config, LocalExecutor()).output
    tokenizer_file = tokenizer / "tokenizer.json"
    counts = token_counts(documents, tokenizer_file)
    tier_tokens = int(token_counts(tier, tokenizer_file).sum())
    shards_tier = shards("tier", tier, tokenizer_file)
    shards_eval = shards("held_out", held_out_documents(), tokenizer_file)
    train_config = load_train_config(None, [
        "model.seq_len=64", "tensorboard=false", "verify_shards=sizes", f"max_steps={args.steps}",
        "micro_batch_size=16", "lr=1e-2", f"eval_every={args.eval_every}", "log_every=50", "device=cpu",
    ])  # fmt: skip
    runs, train_cpu, result = [], 0.0, None
    dist = setup_distributed(train_config.device)
    try:
        for seed in args.seeds:
            chosen = same_tokens_subset(counts, tier_tokens, seed)
            shards_random = shards(f"random_{seed}", [documents[i] for i in chosen], tokenizer_file)
            started = time.process_time()
            out = work / f"ablation_subset_{seed}"
            result = ablate(shards_random, shards_tier, shards_eval, out, train_config, dist)
            train_cpu += time.process_time() - started
            record = json.loads((out / "ablation.json").read_text(encoding="utf-8"))
            runs.append({
                "subset_seed": seed, "random_pages": len(chosen), "random_tokens": int(counts[chosen].sum()),
                "train_seed": record["seed"], "val_loss_a_random": record["val_loss_a"],
                "val_loss_b_tier": record["val_loss_b"], "curve_a_random": record["curve_a"],
                "curve_b_tier": record["curve_b"],
            })  # fmt: skip
    finally:
        dist.close()
    return {
        "pages": len(documents),
        "tier_pages": len(tier),
        "tier_tokens": tier_tokens,
        "parameters": result.a.parameters,
        "training_tokens_each": result.tokens,
        "runs": runs,
        "cpu_seconds_training": round(train_cpu, 1),
    }


SPEC = Spec(
    "quality-ablation",
    __doc__,
    run,
    shared=("work",),
    options=(
        option("--data", type=Path, default=Path("../shared/data"), help="the shared data folder"),
        option("--head", type=Path, default=SHIPPED_HEAD),
        option("--min-score", type=float, default=0.5, help="the tier: quality_score at least this"),
        option("--steps", type=int, default=150),
        option("--eval-every", type=int, default=25),
        option("--seeds", type=int, nargs="+", default=[0, 1, 2], help="one random subset (A) per seed"),
        option("--scores", type=Path, help="reuse the pages' scores saved here, else save them here"),
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
