"""`corpus-pipeline eval decontamination`: recall of the decontaminate stage on eval items planted
into real pages with the edits of the web (decontam/plant.py), and how many clean pages it touches.

Two sets: HumanEval (built in; 164 problems, each planted as its prompt and canonical solution) and
a Chinese set made from real text: People's Daily paragraphs, each cut at a full stop into a
question and an answer. Hosts and clean documents are the real web pages (`web_docs.jsonl`) for
HumanEval and People's Daily articles (5 paragraphs each, none of them an item's) for the Chinese
set. An item counts as found when the stage drops its page and names the item among those found.
"""

from __future__ import annotations

import gzip
import json
import random
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.decontam.config import EvalSetConfig
from corpus_pipeline.decontam.eval_sets import builtin_path
from corpus_pipeline.decontam.matching import find_hits
from corpus_pipeline.decontam.plant import EDIT_KINDS, QA, edited, planted_page
from corpus_pipeline.decontam.stage import DecontaminateStage
from corpus_pipeline.dedup.shingles import normalize_for_hashing
from corpus_pipeline.stats import StageStats

CHINESE_SET = "zh_peoples_daily"
# Paragraphs per Chinese host document, and the characters a question and an answer must have:
# 30, so that even the answer alone holds a 20-character n-gram.
_ARTICLE_PARAGRAPHS = 5
_MIN_HALF_CHARS = 30
_MISSES_SHOWN = 5


@dataclass
class KindScore:
    eval_set: str
    kind: str
    planted: int = 0
    found: int = 0
    misses: list[str] = field(default_factory=list)  # a few, with what the missed text was

    @property
    def recall(self) -> float:
        return self.found / self.planted if self.planted else 0.0


@dataclass
class DecontamEvalReport:
    scores: list[KindScore]
    clean: Counter  # clean documents per corpus
    touched: Counter  # of them, those the stage dropped or cut
    touched_examples: list[str]
    seconds: float

    def recall(self, eval_set: str | None = None) -> float:
        scores = [s for s in self.scores if eval_set is None or s.eval_set == eval_set]
        planted = sum(s.planted for s in scores)
        return sum(s.found for s in scores) / planted if planted else 0.0

    @property
    def false_positive_rate(self) -> float:
        total = sum(self.clean.values())
        return sum(self.touched.values()) / total if total else 0.0

    def to_dict(self) -> dict:
        return {
            "recall": self.recall(),
            "recall_by_set": {name: self.recall(name) for name in sorted({s.eval_set for s in self.scores})},
            "by_kind": [
                {"eval_set": s.eval_set, "kind": s.kind, "planted": s.planted, "found": s.found, "recall": s.recall}
                for s in self.scores
            ],
            "clean_documents": dict(self.clean),
            "clean_touched": dict(self.touched),
            "false_positive_rate": self.false_positive_rate,
            "seconds": round(self.seconds, 2),
        }

    def format_table(self) -> str:
        lines = [f"{'eval set':<18} {'edit':<12} {'planted':>8} {'found':>6} {'recall':>7}"]
        for s in self.scores:
            lines.append(f"{s.eval_set:<18} {s.kind:<12} {s.planted:>8} {s.found:>6} {s.recall:>7.3f}")
        lines.append(f"recall over every planted item: {self.recall():.3f}")
        for name, clean in sorted(self.clean.items()):
            lines.append(f"clean {name}: {self.touched[name]} of {clean:,} touched ({self.touched[name] / clean:.2%})")
        lines.append(f"false-positive rate: {self.false_positive_rate:.3%} of clean documents")
        for s in self.scores:
            for miss in s.misses:
                lines.append(f"  missed ({s.eval_set} {s.kind}): {miss}")
        for example in self.touched_examples:
            lines.append(f"  touched clean: {example}")
        lines.append(f"{self.seconds:.1f} s")
        return "\n".join(lines)


def humaneval_items() -> list[QA]:
    with gzip.open(builtin_path("humaneval"), "rt", encoding="utf-8") as stream:
        problems = [json.loads(line) for line in stream if line.strip()]
    return [QA(p["task_id"], p["prompt"].rstrip(), p["canonical_solution"].rstrip()) for p in problems]


def chinese_items(lines: list[str], count: int, rng: random.Random) -> list[QA]:
    """Paragraphs seen once in the month, cut at the full stop nearest their middle."""
    seen = Counter(lines)
    items = []
    for number, line in enumerate(lines):
        stops = [i + 1 for i, c in enumerate(line) if c == "\u3002" and _MIN_HALF_CHARS <= i + 1 <= len(line) - 30]
        if seen[line] == 1 and stops:
            cut = min(stops, key=lambda i: abs(i - len(line) / 2))
            items.append(QA(f"pd-{number}", line[:cut], line[cut:]))
    return rng.sample(items, min(count, len(items)))


def evaluate_decontamination(
    web_docs: list[dict], chinese_lines: list[str], config: PipelineConfig, seed: int = 1, chinese_count: int = 200
) -> DecontamEvalReport:
    started = time.perf_counter()
    rng = random.Random(seed)
    lines = [line.strip() for line in chinese_lines if line.strip()]
    # Items come from the first half of the month, hosts and clean documents from the second.
    middle = len(lines) // 2
    zh_items = chinese_items(lines[:middle], chinese_count, rng)
    item_lines = {item.question + item.answer for item in zh_items}
    rest = [line for line in lines[middle:] if line not in item_lines]
    articles = ["\n".join(rest[i : i + _ARTICLE_PARAGRAPHS]) for i in range(0, len(rest), _ARTICLE_PARAGRAPHS)]
    pages = [doc["text"] for doc in web_docs if doc.get("text")]
    with tempfile.TemporaryDirectory(prefix="eval-decontam-") as work:
        path = Path(work) / f"{CHINESE_SET}.jsonl"
        with open(path, "w", encoding="utf-8") as stream:
            for item in zh_items:
                stream.write(json.dumps({"id": item.id, "question": item.question, "answer": item.answer}) + "\n")
        sets = [
            EvalSetConfig(name="humaneval", builtin="humaneval"),
            EvalSetConfig(name=CHINESE_SET, path=str(path), fields=["question", "answer"]),
        ]
        stage = DecontaminateStage(config.decontamination.model_copy(update={"eval_sets": sets}))
    scores = [
        _plant_and_score(stage, "humaneval", humaneval_items(), pages, rng),
        _plant_and_score(stage, CHINESE_SET, zh_items, articles, rng),
    ]
    clean, touched, examples = Counter(), Counter(), []
    for corpus, texts in (("web pages", pages), ("People's Daily articles", articles)):
        clean[corpus] = len(texts)
        for number, text in enumerate(texts):
            doc = {"id": f"{corpus}-{number}", "text": text}
            verdict = stage.process(doc, StageStats(stage.name))
            if verdict is not None or doc["decontam_spans_removed"]:
                touched[corpus] += 1
                examples.append(f"{corpus} #{number}: {verdict.detail if verdict else 'spans removed'}")
    return DecontamEvalReport(
        [s for kinds in scores for s in kinds], clean, touched, examples[:_MISSES_SHOWN], time.perf_counter() - started
    )


def _plant_and_score(
    stage: DecontaminateStage, eval_set: str, items: list[QA], hosts: list[str], rng: random.Random
) -> list[KindScore]:
    scores = []
    for kind in EDIT_KINDS:
        score = KindScore(eval_set, kind)
        for item in items:
            host, filler = rng.sample(hosts, 2)
            text = planted_page(host, edited(item, kind, rng, filler.split("\n")[0]), rng)
            # Both sets' action is drop: the stage drops exactly the pages with an item found.
            named = {stage.index.item_ids[i] for i in find_hits(stage.index, text).attributed().items.tolist()}
            score.planted += 1
            if item.id in named:
                score.found += 1
            elif len(score.misses) < _MISSES_SHOWN:
                shown = item.answer if kind == "answer_only" else item.question
                units = normalize_for_hashing(shown)
                size = f"{len(units.split())} words" if " " in units else f"{len(units)} characters"
                score.misses.append(f"{item.id} ({size}): {' '.join(shown.split())[:60]!r}")
        scores.append(score)
    return scores
