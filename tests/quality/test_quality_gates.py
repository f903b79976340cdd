"""Corpus-level gates over a run's final corpus, and the quality CLI verbs."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from quality_junk_corpus import junk_documents
from stage_fixtures import stage_dir

from corpus_pipeline.cli import build_parser, main
from corpus_pipeline.config import PipelineConfig, load_config
from corpus_pipeline.document import DOCUMENT_SCHEMA, empty_document
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.gates import GateFindings, evaluate_gates, final_corpus
from corpus_pipeline.quality.config import QualityGatesConfig
from corpus_pipeline.quality.gates import language_gates
from corpus_pipeline.storage import Storage

SIGNALS = ("gopher_word_count", "vocab_coverage", "char_entropy", "dup_content_hash")
SCHEMA = DOCUMENT_SCHEMA.append(pa.field("gopher_word_count", pa.int32()))
for name, kind in (("vocab_coverage", pa.float32()), ("char_entropy", pa.float32()), ("dup_content_hash", pa.int64())):
    SCHEMA = SCHEMA.append(pa.field(name, kind))


STORAGE = Storage()


def quality_gates_of(run_dir: Path, config: QualityGatesConfig) -> GateFindings:
    return language_gates(final_corpus(run_dir, STORAGE)[0], config, STORAGE)


def write_stage(run_dir: Path, name: str, rows: list[dict], schema: pa.Schema = SCHEMA) -> Path:
    """A finished directory of the registry stage `name` in `run_dir`, holding `rows`."""
    return publish_rows(stage_dir(run_dir, name), [rows], schema, stage=name)


def doc(i: int, language: str, words: int, coverage: float | None, entropy: float, content: int) -> dict:
    values = dict(zip(SIGNALS, (words, coverage, entropy, content), strict=True))
    return {**empty_document(id=str(i), text="x", language=language), **values}


def corpus(run_dir: Path, en_coverage: float = 0.99, duplicates: int = 0, zh_entropy: float = 9.0) -> Path:
    rows = [doc(i, "en", 100, en_coverage, 4.4, i) for i in range(400)]
    rows += [doc(400 + i, "en", 100, en_coverage, 4.4, 0) for i in range(duplicates)]
    rows += [doc(1000 + i, "zh", 300, 0.999, zh_entropy, 10_000 + i) for i in range(30)]
    rows += [doc(2000 + i, "de", 80, None, 4.6, 20_000 + i) for i in range(30)]
    rows += [doc(3000 + i, "fr", 80, None, 1.0, 30_000 + i) for i in range(3)]  # too few to gate
    write_stage(run_dir, "normalize", [empty_document(id="n", text="x")], DOCUMENT_SCHEMA)
    return write_stage(run_dir, "quality", rows)


def test_a_clean_corpus_passes_every_gate(tmp_path):
    final = corpus(tmp_path / "run")
    assert final_corpus(tmp_path / "run", STORAGE) == (final, tmp_path / "run")
    assert final_corpus(final, STORAGE) == (final, tmp_path / "run")
    report = quality_gates_of(tmp_path / "run", QualityGatesConfig())
    assert all(gate.passed for gate in report.gates), report.gates
    assert report.languages["en"]["vocab_coverage"] == pytest.approx(0.99, abs=1e-6)
    assert report.languages["en"]["duplicate_ratio"] == 0.0
    assert [g.name for g in report.gates if g.language == "de" and g.value is None] == ["vocab_coverage"]
    assert not report.languages["fr"]["gated"]
    unchecked = PipelineConfig.model_validate({"decontamination": {"max_contamination": {}}})
    table = evaluate_gates(tmp_path / "run", unchecked, STORAGE).format_table()
    assert "not gated (too few documents): fr" in table and table.endswith("PASSED")


def test_each_gate_fails_with_its_figures(tmp_path):
    report = quality_gates_of(corpus(tmp_path / "a", en_coverage=0.9), QualityGatesConfig())
    failed = [(g.language, g.name, round(g.value, 4)) for g in report.gates if not g.passed]
    assert failed == [("en", "vocab_coverage", 0.9)]
    report = quality_gates_of(corpus(tmp_path / "b", duplicates=4), QualityGatesConfig())
    assert [(g.name, round(g.value, 5)) for g in report.gates if not g.passed] == [("duplicate_ratio", 0.0099)]
    report = quality_gates_of(corpus(tmp_path / "c", zh_entropy=5.0), QualityGatesConfig())
    assert [(g.language, g.name) for g in report.gates if not g.passed] == [("zh", "char_entropy")]
    report = quality_gates_of(corpus(tmp_path / "d"), QualityGatesConfig(languages=["en", "ja"]))
    assert [(g.language, g.name) for g in report.gates if not g.passed] == [("ja", "documents")]


def test_gates_need_the_quality_columns_and_documents(tmp_path):
    write_stage(tmp_path / "run", "normalize", [empty_document(id="n", text="x")], DOCUMENT_SCHEMA)
    with pytest.raises(ValueError, match="run `quality` first"):
        quality_gates_of(tmp_path / "run", QualityGatesConfig())
    empty = evaluate_gates(write_stage(tmp_path / "empty", "quality", []), PipelineConfig(), STORAGE)
    assert not empty.passed and "FAIL: the corpus has no documents" in empty.format_table()
    with pytest.raises(FileNotFoundError, match="no finished stage of documents"):
        final_corpus(tmp_path / "nothing", STORAGE)


def run_cli(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args, load_config(args.config, args.overrides))


def test_gates_verb_prints_json_and_exits_nonzero_on_failure(tmp_path, capsys):
    corpus(tmp_path / "ok")
    # A corpus decontaminate did not write: its contamination gate is not measured, and fails.
    assert run_cli(["gates", str(tmp_path / "ok")]) == 1
    assert "FAIL all      contamination:humaneval not measured" in capsys.readouterr().out
    unchecked = ["--set", "decontamination.max_contamination={}"]
    assert run_cli(["gates", str(tmp_path / "ok"), "--json", *unchecked]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["passed"] and figures["languages"]["zh"]["documents"] == 30
    assert run_cli(["gates", str(tmp_path / "ok"), *unchecked, "--set", "quality.gates.min_vocab_coverage=0.995"]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_quality_and_train_classifier_verbs(tmp_path, capsys):
    rows = [
        empty_document(id=str(i), text=t, language=lang) for i, (_, lang, t) in enumerate(junk_documents(per_kind=1))
    ]
    source = publish_rows(tmp_path / "run" / "input", [rows], DOCUMENT_SCHEMA, stage="input")
    output = stage_dir(tmp_path / "run", "quality")
    assert run_cli(["quality", "--input", str(source), "--output", str(output), "--runner", "local"]) == 0
    assert "quality" in capsys.readouterr().out and (output / "_SUCCESS").exists()
    assert main(["quality", "--input", str(source)]) == 2  # every failure's code is main's (failures.py)
    good = tmp_path / "good.txt"
    # distinct lines: a line repeated in a file is one example (read as ingest reads it)
    good.write_text(
        "\n".join(f"the council voted to expand public library {n} and its hours" for n in range(40)), encoding="utf-8"
    )
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(f"cheap viagra casino {n} free spins click here now" for n in range(40)), encoding="utf-8")
    model = tmp_path / "m.bin"
    argv = ["quality", "train-classifier", "--positive", str(good), "--negative", str(bad), "--output", str(model)]
    assert run_cli([*argv, "--dim", "8", "--bucket", "1000", "--epoch", "3"]) == 0
    out = capsys.readouterr().out
    assert "heldout_accuracy: 1.0000" in out and f"quality.classifier.model_path={model}" in out
    assert run_cli([*argv, "--dim", "8", "--bucket", "1000", "--epoch", "3"]) == 0  # ours: replaced
    user_model = tmp_path / "users.bin"
    user_model.write_bytes(b"the user's own model")
    user_argv = [*argv[:-1], str(user_model), "--dim", "8", "--bucket", "1000", "--epoch", "3"]
    assert main(user_argv) == 2 and user_model.read_bytes() == b"the user's own model"
    capsys.readouterr()
    scored = tmp_path / "run" / "scored"
    assert run_cli(["quality", "--input", str(source), "--output", str(scored), "--runner", "local",
                    "--set", f"quality.classifier.model_path={model}"]) == 0  # fmt: skip
    rejected = pq.read_table(scored / "_rejected", columns=["quality_classifier_score"])
    assert rejected.num_rows == len(rows) and None not in rejected.column(0).to_pylist()


def test_a_gate_not_measured_shows_as_not_measured_not_passed(tmp_path, capsys):
    """de has no reference vocabulary: its coverage gate does not block, and says so everywhere."""
    from corpus_pipeline.config import PipelineConfig
    from corpus_pipeline.report.write import write_report

    corpus(tmp_path / "run")
    unchecked = ["--set", "decontamination.max_contamination={}"]
    assert run_cli(["gates", str(tmp_path / "run"), "--json", *unchecked]) == 0
    out = capsys.readouterr().out
    [line] = [line for line in out.splitlines() if " de " in line and "vocab_coverage" in line]
    assert line.split()[:2] == ["not", "measured"] and "pass" not in line
    gates = json.loads(out.strip().splitlines()[-1])["gates"]
    de = {gate["name"]: gate["verdict"] for gate in gates if gate["language"] == "de"}
    assert de == {"vocab_coverage": "not measured", "duplicate_ratio": "pass", "char_entropy": "pass"}
    config = PipelineConfig.model_validate({"decontamination": {"max_contamination": {}}})
    page = write_report(tmp_path / "run", config).path.read_text(encoding="utf-8")
    gates_section = page[page.index('<section id="gates">') :].split("</section>")[0]
    row = gates_section[gates_section.index("<td>de</td><td>vocab_coverage</td>") :].split("</tr>")[0]
    assert "not measured" in row and ">pass<" not in row
