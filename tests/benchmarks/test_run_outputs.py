"""benchmarks/run_outputs.py: two runs' outputs are the same only when every stage directory holds
the same files with the same rows; where each run read its input from is not a difference."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from run_outputs import compare_runs  # noqa: E402

from corpus_pipeline.cli import main as corpus_pipeline  # noqa: E402

DOCUMENTS = [
    {"id": "a", "text": "The harbour authority published new rules for cargo ships.", "url": "https://x.example/a"},
    {"id": "b", "text": "Volunteers planted four hundred oak trees.", "url": "https://x.example/b"},
]


def ingest_run(root: Path, documents: list[dict]) -> tuple[str, str]:
    """A run directory holding one ingest stage of `documents`, and where it read them."""
    source = root / "input" / "docs.jsonl"
    source.parent.mkdir(parents=True)
    source.write_text("".join(json.dumps(doc) + "\n" for doc in documents))
    stage = root / "run" / "ingest"
    assert corpus_pipeline(["ingest", "--input", str(source), "--output", str(stage), "--runner", "local"]) == 0
    return str(root / "run"), str(source)


def test_the_same_documents_read_from_another_place_are_the_same_outputs(tmp_path):
    comparison = compare_runs(ingest_run(tmp_path / "one", DOCUMENTS), ingest_run(tmp_path / "two", DOCUMENTS))
    # part-00000.parquet and _stats.json (the per-task counters are left out)
    assert comparison == {"stages": 1, "files": 2, "differences": []}


def test_one_changed_word_is_a_difference(tmp_path):
    changed = [DOCUMENTS[0], {**DOCUMENTS[1], "text": "Volunteers planted four hundred elm trees."}]
    comparison = compare_runs(ingest_run(tmp_path / "one", DOCUMENTS), ingest_run(tmp_path / "two", changed))
    # "oak" and "elm": the same bytes in, so the counters agree and the rows do not
    assert comparison["differences"] == ["ingest/part-00000.parquet differs"]


def test_a_stage_only_one_run_finished_is_a_difference(tmp_path):
    one = ingest_run(tmp_path / "one", DOCUMENTS)
    two = ingest_run(tmp_path / "two", DOCUMENTS)
    (Path(two[0]) / "ingest" / "_SUCCESS").rename(Path(two[0]) / "ingest" / "_SUCCESS.not")
    assert compare_runs(one, two)["differences"] == ["stage directories: ['ingest'] against []"]
