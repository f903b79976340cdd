"""The quality stage's gates over a run's final corpus, per language (corpus_pipeline/gates.py calls them
through the registry).

Per language, from the quality stage's columns of the kept documents (no text is read):
- vocabulary coverage: the word-weighted mean of `vocab_coverage` (each document weighs its
  `gopher_word_count`), >= `min_vocab_coverage` (98%); languages without a reference vocabulary
  are reported as not measured, not failed;
- duplicate ratio: the share of documents whose `dup_content_hash` (text with case and whitespace
  folded) was already seen, < `max_duplicate_ratio` (0.5%): what dedup left behind;
- character entropy: the word-weighted mean of `char_entropy` (bits per character), inside the
  language's band (measured on the real pages: English 4.57, German 4.62, Chinese 8.11).
A language with fewer than `min_documents` documents is listed but not gated, unless it is named
in `languages`. An empty corpus fails (corpus_pipeline/gates.py): there is nothing to publish.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.engine.store.stage_dir import Location, input_parts
from corpus_pipeline.gates import Gate, GateFindings, GateInputs
from corpus_pipeline.quality.config import QualityGatesConfig
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import columns_present, open_parquet

COLUMNS = ("language", "gopher_word_count", "vocab_coverage", "char_entropy", "dup_content_hash")


def read_signals(corpus: Location, storage: Storage) -> pa.Table:
    tables = []
    for part in input_parts(corpus, storage):
        # An object: its footer, then only these columns' pages (ranged reads), as for a local file.
        with open_parquet(storage, str(part)) as file:
            present = columns_present(file, list(COLUMNS))
            missing = [c for c in COLUMNS if c not in present]
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


def language_gates(corpus: Location, config: QualityGatesConfig, storage: Storage) -> GateFindings:
    table = read_signals(corpus, storage)
    findings = GateFindings()
    if not table.num_rows:  # no documents: a normal outcome; the report fails ("no documents")
        table = table.cast(pa.schema([(name, pa.string()) for name in table.column_names]))
    languages = pc.fill_null(table.column("language"), "unknown")
    table = table.set_column(0, "language", languages)
    for language in sorted(set(languages.to_pylist())):
        figures = _figures(table.filter(pc.equal(table.column("language"), language)))
        gated = language in config.languages if config.languages else figures["documents"] >= config.min_documents
        findings.languages[language] = {**figures, "gated": gated}
        if gated:
            findings.gates += _gates(language, figures, config)
    for language in config.languages:
        if language not in findings.languages:  # asked for, absent: a corpus missing a language fails
            findings.gates.append(Gate(language, "documents", 0.0, ">= 1", False))
    return findings


def quality_gates(inputs: GateInputs) -> GateFindings:
    """The registry's gates of the quality stage (engine/registry.py)."""
    return language_gates(inputs.corpus, inputs.config.quality.gates, inputs.storage)


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
