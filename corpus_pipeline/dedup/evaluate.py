"""`eval dedup`: precision, recall and F1 of duplicate detection, per method, on planted copies.

A drop is correct when the dropped and kept documents are one planted family (an original and its
copy), or when they or their originals have a true shingle Jaccard >= TRUE_DUPLICATE_JACCARD: real
duplicates already in the input, which no label knows about (a copy of page A kept as page B, an
exact copy of A, is right). A planted copy is found when it ends up represented by the
same kept document as its original. Recall is also given by the copy's true Jaccard to its original.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow.parquet as pq

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup.paragraph_batches import REASON as PARAGRAPH_REASON
from corpus_pipeline.dedup.plant import PLANT_SHARE, plant_copies
from corpus_pipeline.dedup.shingles import document_shingles, jaccard
from corpus_pipeline.dedup.staging import write_documents_stage

TRUE_DUPLICATE_JACCARD = 0.8
JACCARD_BINS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)


@dataclass
class MethodScore:
    method: str
    dropped: int = 0
    correct_drops: int = 0
    planted: int = 0
    found: int = 0
    found_by_bin: dict[str, list[int]] = field(default_factory=dict)  # bin -> [found, planted]

    def to_dict(self) -> dict:
        precision = self.correct_drops / self.dropped if self.dropped else 1.0
        recall = self.found / self.planted if self.planted else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        bins = {
            b: {"found": f, "planted": n, "recall": round(f / n, 4) if n else None}
            for b, (f, n) in self.found_by_bin.items()
        }
        return {
            "method": self.method,
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "dropped": self.dropped,
            "correct_drops": self.correct_drops,
            "planted": self.planted,
            "recall_by_true_jaccard": bins,
        }


@dataclass
class DedupReport:
    documents: int
    scores: list[MethodScore]

    def to_dict(self) -> dict:
        return {"documents": self.documents, "methods": [s.to_dict() for s in self.scores]}

    def format_table(self) -> str:
        width = max([16, *(len(score.method) + 2 for score in self.scores)])  # a chain's name is long
        lines = [
            f"{self.documents} documents",
            f"{'method':<{width}}{'precision':>10}{'recall':>8}{'f1':>8}  recall by true Jaccard",
        ]
        for score in self.scores:
            data = score.to_dict()
            bins = " ".join(f"{b}:{v['recall']}({v['planted']})" for b, v in data["recall_by_true_jaccard"].items())
            lines.append(
                f"{data['method']:<{width}}{data['precision']:>10.4f}{data['recall']:>8.4f}{data['f1']:>8.4f}  {bins}"
            )
        return "\n".join(lines)


def load_jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as stream:
        return [json.loads(line) for line in stream if line.strip()]


def _bin(value: float) -> str:
    for low, high in zip(JACCARD_BINS, JACCARD_BINS[1:], strict=False):
        if low <= value < high:
            return f"{low:.1f}-{min(high, 1.0):.1f}"
    raise ValueError(f"Jaccard {value} outside [0, 1]")


def representatives(stage_dir: Path) -> dict[str, str]:
    """id -> the id of the document kept for it (itself when kept, and when rejected for a reason
    that names no kept document: emptied by paragraph removal, which is no duplicate decision)."""
    kept = {}
    for part in stage_dir.glob("part-*.parquet"):
        kept.update({row: row for row in pq.read_table(part, columns=["id"]).column("id").to_pylist()})
    for part in stage_dir.glob(f"_rejected/reason={PARAGRAPH_REASON}/*.parquet"):
        kept.update({row: row for row in pq.read_table(part, columns=["id"]).column("id").to_pylist()})
    for part in stage_dir.glob("_rejected/reason=*_duplicate/*.parquet"):
        table = pq.read_table(part, columns=["id", "reject_detail"])
        kept.update(zip(table.column("id").to_pylist(), table.column("reject_detail").to_pylist(), strict=True))
    return kept


def score_method(method: str, docs: list[dict], family: dict[str, str], rep: dict[str, str], config) -> MethodScore:
    text = {doc["id"]: doc for doc in docs}

    def shingles(doc_id: str) -> set[str]:
        doc = text[doc_id]
        return document_shingles(doc["text"], doc.get("language"), config.dedup.word_ngram, config.dedup.char_ngram)

    score = MethodScore(method)
    for doc_id, kept_id in rep.items():
        if doc_id == kept_id:
            continue
        score.dropped += 1
        originals = family.get(doc_id, doc_id), family.get(kept_id, kept_id)
        score.correct_drops += (
            originals[0] == originals[1]
            or jaccard(shingles(doc_id), shingles(kept_id)) >= TRUE_DUPLICATE_JACCARD
            or jaccard(*map(shingles, originals)) >= TRUE_DUPLICATE_JACCARD
        )
    for copy_id, original_id in family.items():
        if copy_id == original_id:
            continue
        key = _bin(jaccard(shingles(copy_id), shingles(original_id)))
        found = rep[copy_id] == rep[original_id]
        counts = score.found_by_bin.setdefault(key, [0, 0])
        counts[0] += found
        counts[1] += 1
        score.planted += 1
        score.found += found
    score.found_by_bin = dict(sorted(score.found_by_bin.items()))
    return score


def evaluate_dedup(
    docs: list[dict], config: PipelineConfig, spark, seed: int | None, share: float = PLANT_SHARE, work=None
) -> DedupReport:
    """Run the dedup stage once per configured method, then the whole chain, and score each; with a
    seed, an edited copy of a `share` of the documents is planted first. `work`: the verb's
    (failures.Work), marked when the first task starts."""
    from corpus_pipeline.engine.exec.spark import SparkExecutor
    from corpus_pipeline.stage_runner import run_stage

    planted = plant_copies(docs, seed, share) if seed is not None else []
    family = {doc["id"]: doc["id"] for doc in docs} | {p.copy["id"]: p.original_id for p in planted}
    rows = [{k: v for k, v in doc.items() if k in {"id", "text", "url", "date", "language"}} for doc in docs]
    all_docs = rows + [
        {k: v for k, v in p.copy.items() if k in {"id", "text", "url", "date", "language"}} for p in planted
    ]
    # Paragraph removal detects no duplicates, so it is scored only inside the whole chain.
    alone = [[m] for m in config.dedup.methods if m != "paragraph"]
    runs = alone + ([config.dedup.methods] if config.dedup.methods not in alone else [])
    scores = []
    with tempfile.TemporaryDirectory(prefix="eval-dedup-") as work:
        source = write_documents_stage(all_docs, Path(work) / "input", parts=4)
        for methods in runs:
            run_config = config.model_copy(update={"dedup": config.dedup.model_copy(update={"methods": methods})})
            result = run_stage("dedup", source, Path(work) / "+".join(methods), run_config, SparkExecutor(spark, work))
            scores.append(score_method("+".join(methods), all_docs, family, representatives(result.output), config))
    return DedupReport(len(all_docs), scores)
