"""Planted near-duplicates, the eval scoring and the CLI wiring, without Spark."""

from __future__ import annotations

import argparse
import random

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup import cli
from corpus_pipeline.dedup.evaluate import score_method
from corpus_pipeline.dedup.plant import plant_copies
from corpus_pipeline.dedup.shingles import document_shingles, jaccard

RNG = random.Random(5)
ENGLISH = [
    {"id": f"d{i}", "text": "\n".join(" ".join(RNG.choices([f"w{k}" for k in range(500)], k=40)) for _ in range(5))}
    for i in range(40)
]
CHINESE = [
    {"id": f"z{i}", "text": "".join(RNG.choices([chr(0x4E00 + k) for k in range(800)], k=300)), "language": "zh"}
    for i in range(10)
]


def test_planting_is_seeded_and_edits_lightly():
    first, second = plant_copies(ENGLISH, seed=1), plant_copies(ENGLISH, seed=1)
    assert [p.copy for p in first] == [p.copy for p in second] and 10 < len(first) < 30
    originals = {doc["id"]: doc for doc in ENGLISH}
    for planted in first:
        original = originals[planted.original_id]["text"]
        assert planted.copy["id"] == f"{planted.original_id}#copy" and planted.copy["text"] != original
        assert 0.5 < len(planted.copy["text"].split()) / len(original.split()) < 1.5


def test_chinese_copies_are_edited_by_characters():
    for planted in plant_copies(CHINESE, seed=2, share=1.0):
        original = CHINESE[int(planted.original_id[1:])]["text"]
        assert not any("a" <= char <= "z" for char in planted.copy["text"])
        similarity = jaccard(
            document_shingles(original, "zh", 5, 5), document_shingles(planted.copy["text"], "zh", 5, 5)
        )
        assert 0.2 < similarity < 1.0


def test_scoring_counts_correct_and_wrong_drops_and_recall():
    docs = [
        {"id": "a", "text": "one two three four five six seven"},
        {"id": "a#copy", "text": "one two three four five six eight"},
        {"id": "b", "text": "entirely different words in this text here"},
    ]
    family = {"a": "a", "a#copy": "a", "b": "b"}
    config = PipelineConfig()
    found = score_method("m", docs, family, {"a": "a", "a#copy": "a", "b": "b"}, config)
    assert (found.dropped, found.correct_drops, found.found, found.planted) == (1, 1, 1, 1)
    wrong = score_method("m", docs, family, {"a": "a", "a#copy": "a#copy", "b": "a"}, config)
    data = wrong.to_dict()
    assert (
        data["precision"] == 0.0 and data["recall"] == 0.0 and data["recall_by_true_jaccard"]["0.5-0.6"]["planted"] == 1
    )


def test_cli_registers_the_verb_and_the_eval_target():
    parser = argparse.ArgumentParser()
    evaluate = parser.add_subparsers(dest="verb").add_parser("eval").add_subparsers(dest="target")
    cli.add_eval_target(evaluate)
    args = parser.parse_args(["eval", "dedup", "--docs", "d.jsonl", "--plant", "3", "--json"])
    assert args.handler is cli.run_dedup_eval and args.plant == 3 and args.json
