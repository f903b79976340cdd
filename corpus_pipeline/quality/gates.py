"""Corpus-level quality gates over a run's final corpus, per language: the last word before publishing.

Per language, from the quality stage's columns of the kept documents (no text is read):
- vocabulary coverage: the word-weighted mean of `vocab_coverage` (each document weighs its
  `gopher_word_count`), >= `min_vocab_coverage` (98%); languages without a reference vocabulary
  are reported as not measured, not failed;
- duplicate ratio: the share of documents whose `dup_content_hash` (text with case and whitespace
  folded) was already seen, < `max_duplicate_ratio` (0.5%): what dedup left behind;
- character entropy: the word-weighted mean of `char_entropy` (bits per character), inside the
  language's band (measured on the real pages: English 4.57, German 4.62, Chinese 8.11).
A language with fewer than `min_documents` documents is listed but not gated, unless it is named
in `languages`. An empty corpus fails: there is nothing to publish.

The final corpus of RUN_DIR is its highest-numbered stage directory (`NN_stage/`) that finished
(`_SUCCESS`) and holds Parquet parts; RUN_DIR may also be such a stage directory itself.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from corpus_pipeline.config import PipelineConfig, QualityGatesConfig
from corpus_pipeline.storage import Storage, is_object_uri

COLUMNS = ("language", "gopher_word_count", "vocab_coverage", "char_entropy", "dup_content_hash")
SUCCESS = "_SUCCESS"


@dataclass
class Gate:
    language: str
    name: str  # vocab_coverage, duplicate_ratio, char_entropy
    value: float | None  # None: not measured (no vocabulary for the language)
    bound: str  # ">= 0.98", "< 0.005", "in [3.5, 5.5]"
    passed: bool

    @property
    def verdict(self) -> str:
        """pass, FAIL, or "not measured": a gate with no value (no vocabulary for ja or vi) does not
        block, and is not shown as passed either."""
        if self.value is None and self.passed:
            return "not measured"
        return "pass" if self.passed else "FAIL"


@dataclass
class GateReport:
    corpus: Path
    documents: int
    languages: dict[str, dict] = field(default_factory=dict)  # figures per language
    gates: list[Gate] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.documents > 0 and all(gate.passed for gate in self.gates)

    def to_dict(self) -> dict:
        return {
            "corpus": str(self.corpus),
            "documents": self.documents,
            "passed": self.passed,
            "languages": self.languages,
            "gates": [{**gate.__dict__, "verdict": gate.verdict} for gate in self.gates],
        }

    def format_table(self) -> str:
        lines = [f"gates over {self.corpus} ({self.documents:,} documents)"]
        if not self.documents:
            lines.append("  FAIL: the corpus has no documents")
        for gate in self.gates:
            value = "not measured" if gate.value is None else f"{gate.value:.4f}"
            lines.append(f"  {gate.verdict:<4} {gate.language:<8} {gate.name:<16} {value:>12}  (bound {gate.bound})")
        ungated = [lang for lang, figures in self.languages.items() if not figures["gated"]]
        if ungated:
            lines.append(f"  not gated (too few documents): {', '.join(ungated)}")
        lines.append("PASSED" if self.passed else "FAILED")
        return "\n".join(lines)


def final_corpus_dir(run_dir: Path | str) -> Path | str:
    if is_object_uri(run_dir):  # a stage on a store (the pipeline's gates step names its corpus)
        return run_dir
    if (run_dir / SUCCESS).exists():
        return run_dir
    if not run_dir.is_dir():
        raise FileNotFoundError(f"{run_dir} is not a directory")
    stages = [d for d in run_dir.iterdir() if d.is_dir() and d.name[:2].isdigit() and (d / SUCCESS).exists()]
    # Only the stages that keep their documents here (the last of a fused pass): the last of them
    # is the corpus, with no parts when it kept no documents (then the gates fail: "no documents").
    stages = [d for d in stages if json.loads((d / SUCCESS).read_text(encoding="utf-8")).get("kept", "here") == "here"]
    if not stages:
        raise FileNotFoundError(f"{run_dir} has no finished stage directory (NN_stage/ with {SUCCESS})")
    return max(stages, key=lambda d: (int(d.name[:2]), d.name))


def read_signals(corpus: Path | str) -> pa.Table:
    from corpus_pipeline.engine.stage_dir import input_parts

    storage = Storage()
    parts = input_parts(corpus, storage) if is_object_uri(corpus) else sorted(corpus.glob("part-*.parquet"))
    tables = []
    for part in parts:
        # An object: its footer, then only these columns' pages (ranged reads), as for a local file.
        file = pq.ParquetFile(storage.parquet_source(str(part)))
        missing = [c for c in COLUMNS if c not in file.schema_arrow.names]
        if missing:
            raise ValueError(f"{part} lacks {missing}: gates read the quality stage's columns; run `quality` first")
        tables.append(file.read(columns=list(COLUMNS)))
    return pa.concat_tables(tables) if tables else pa.table({c: [] for c in COLUMNS})


def _figures(table: pa.Table) -> dict:
    words = pc.cast(pc.fill_null(table.column("gopher_word_count"), 0), pa.float64())
    coverage = pc.cast(table.column("vocab_coverage"), pa.float64())
    covered_weight = pc.sum(pc.if_else(pc.is_null(coverage), 0.0, words)).as_py() or 0.0
    entropy_weight = pc.sum(words).as_py() or 0.0
    documents = table.num_rows
    return {
        "documents": documents,
        "words": int(entropy_weight),
        "vocab_coverage": (pc.sum(pc.multiply(coverage, words)).as_py() / covered_weight if covered_weight else None),
        "duplicate_ratio": 1.0 - pc.count_distinct(table.column("dup_content_hash")).as_py() / documents,
        "char_entropy": (
            pc.sum(pc.multiply(pc.cast(table.column("char_entropy"), pa.float64()), words)).as_py() / entropy_weight
            if entropy_weight
            else pc.mean(table.column("char_entropy")).as_py()
        ),
    }


def evaluate_gates(run_dir: Path, config: QualityGatesConfig) -> GateReport:
    corpus = final_corpus_dir(run_dir)
    table = read_signals(corpus)
    report = GateReport(corpus=corpus, documents=table.num_rows)
    if not table.num_rows:  # no documents: a normal outcome; the report fails ("no documents")
        table = table.cast(pa.schema([(name, pa.string()) for name in table.column_names]))
    languages = pc.fill_null(table.column("language"), "unknown")
    table = table.set_column(0, "language", languages)
    for language in sorted(set(languages.to_pylist())):
        figures = _figures(table.filter(pc.equal(table.column("language"), language)))
        gated = language in config.languages if config.languages else figures["documents"] >= config.min_documents
        report.languages[language] = {**figures, "gated": gated}
        if gated:
            report.gates += _gates(language, figures, config)
    for language in config.languages:
        if language not in report.languages:  # asked for, absent: a corpus missing a language fails
            report.gates.append(Gate(language, "documents", 0.0, ">= 1", False))
    return report


def evaluate_corpus_gates(run_dir: Path, config: PipelineConfig) -> GateReport:
    """Every gate before publishing: these per language, and the contamination gates per eval set
    (decontam/gates.py)."""
    from corpus_pipeline.decontam.gates import contamination_gates

    report = evaluate_gates(run_dir, config.quality.gates)
    report.gates += contamination_gates(report.corpus, config.decontamination)
    return report


def _gates(language: str, figures: dict, config: QualityGatesConfig) -> list[Gate]:
    low, high = config.entropy_band_by_language.get(language, config.entropy_band)
    coverage, duplicates, entropy = figures["vocab_coverage"], figures["duplicate_ratio"], figures["char_entropy"]
    return [
        Gate(
            language,
            "vocab_coverage",
            coverage,
            f">= {config.min_vocab_coverage:g}",
            coverage is None or coverage >= config.min_vocab_coverage,
        ),
        Gate(
            language,
            "duplicate_ratio",
            duplicates,
            f"< {config.max_duplicate_ratio:g}",
            duplicates < config.max_duplicate_ratio,
        ),
        Gate(
            language, "char_entropy", entropy, f"in [{low:g}, {high:g}]", entropy is not None and low <= entropy <= high
        ),
    ]
