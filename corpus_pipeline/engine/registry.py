"""Every stage, declared once: the CLI verb, the `jobs/stage.py` entry, the make target, the config
section, the checks before a run, the pipeline step, the run record's notes, the report's stage list
and sections, and schemas/document.md's drop reasons all come from `STAGES`.

This module imports nothing but the standard library, so `python3 corpus_pipeline/engine/registry.py`
lists the stages for the Makefile before any virtual environment exists.

    kind      source: one task per input file -> documents; document: a pure function of each
              document (fused with its neighbours); global: sees all documents at once
    directory where the stage writes inside a run directory (`runs/<run_id>/<directory>`)
    section   the config section that decides its output (`PipelineConfig.<section>`)
    factory   "module:Class", built with that section (and the stage's own options)
    input     what `--input` names: crawl files, a stage directory of documents, or a seeds file
    output    what its directory holds: documents, warc, a tokenizer or token shards
    opt_in    a run includes it only when its config section says `enabled: true`
    config    "module:Model", its section's config model: `PipelineConfig` is built from these
    preflight "module:function" checks before a run's first step, each given a `Preflight`
    step      "module:function", its pipeline step when its inputs are not just the previous
              documents (pipeline/stage_steps.py); a document stage's is pipeline/document_steps.py's
    notes     "module:function" adding what its step found to the run record (pipeline/record_notes.py)
    report    "module:function" filling its section of the report's figures (report/collect.py)
    drop_reasons  every reason it drops a document for (schemas/document.md's table is checked)
    reads, writes the columns it reads and writes: a stage whose input lacks a column it reads
              (and no stage before it in its pass writes) is refused before the first task
              (engine/columns.py), naming the stage that writes it
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Preflight:
    """What a stage's preflight check is given: the run's config (a PipelineConfig), the tokenizer
    the run was given (None: the one of `pipeline.tokenizer`, or trained), and whether the run's mix
    remixes published increments (the nightly's: it checked the mix targets against every source)."""

    config: object
    tokenizer: object = None
    remixes_published: bool = False


@dataclass(frozen=True)
class StageOption:
    """A CLI option of one stage beyond --input/--output (the dedup index, the tokenizer...)."""

    flag: str
    help: str
    # In `--run-dir` mode, the default: a path relative to the run directory, or "{data_root}/...".
    run_dir_default: str | None = None
    required: bool = False
    # Set: the option is a shorthand for `--set <config_key>=VALUE` rather than a path for the stage.
    config_key: str | None = None
    # True: takes one or more values, handed to the stage as a list of strings (not paths).
    many: bool = False


@dataclass(frozen=True)
class StageSpec:
    name: str
    kind: str  # "source", "document" or "global"
    directory: str
    section: str
    factory: str
    help: str
    input: str = "documents"  # "files" (crawl files), "datasets", "documents" or "seeds"
    output: str = "documents"  # "documents", "warc", "tokenizer" or "tokens"
    options: tuple[StageOption, ...] = field(default=())
    # Runs only when every quality gate passed: it consumes the finished corpus.
    consumes_corpus: bool = False
    default_runner: str = "spark"
    # True: `--input` takes one or more stage directories, read as one corpus (a run's sources).
    many_inputs: bool = False
    # Config sections besides `section` that decide the output, given to the factory by name.
    also_reads: tuple[str, ...] = ()
    # Its gates over the final corpus before publishing, "module:function" (corpus_pipeline/gates.py).
    gates: tuple[str, ...] = ()
    # True: a run leaves it out unless `<section>.enabled` is true (its CLI verb runs it anyway).
    opt_in: bool = False
    # The fields below are described in the module's docstring.
    config: str = ""
    preflight: tuple[str, ...] = ()
    step: str | None = None
    notes: str | None = None
    report: str | None = None
    drop_reasons: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()

    @property
    def fusable(self) -> bool:
        """Runs in one pass with the document stages that follow it."""
        return self.kind in ("source", "document")


_TOKENIZER = StageOption(
    "--tokenizer",
    "tokenizer.json (ours or any HF one), or a train-tokenizer directory",
    run_dir_default="tokenizer",
    required=True,
)

# The document columns a source stage writes (document.py's DOCUMENT_SCHEMA, less langid's).
_SOURCE_COLUMNS = (
    "id", "text", "url", "date", "dump", "source", "domain", "file_path", "warc_record_id", "warc_offset",
    "content_type", "charset", "token_count", "metadata",
)  # fmt: skip

STAGES: tuple[StageSpec, ...] = (
    StageSpec(
        "crawl",
        "global",
        "{data_root}/crawl/{run_id}",
        "crawl",
        "corpus_pipeline.crawl.stage:CrawlStage",
        "crawl seed URLs (robots.txt, politeness, safety) into WARC files",
        step="corpus_pipeline.pipeline.stage_steps:crawl",
        input="seeds",
        output="warc",
        options=(StageOption("--previous", "an earlier crawl's output: send conditional requests"),),
        # One process crawls every seed; --runner spark spreads domain groups over the cluster.
        default_runner="local",
        config="corpus_pipeline.crawl.config:CrawlConfig",
    ),
    StageSpec(
        "extract",
        "source",
        "01_extract",
        "extract",
        "corpus_pipeline.extract.stage:ExtractStage",
        "WARC/WET/ARC files -> documents (trafilatura)",
        step="corpus_pipeline.pipeline.stage_steps:extract",
        input="files",
        also_reads=("domains", "storage"),
        config="corpus_pipeline.extract.config:ExtractConfig",
        drop_reasons=tuple(
            "not_a_document http_status not_html too_large binary_content extract_error extract_timeout "
            "no_main_text read_error".split()
        ),
        writes=_SOURCE_COLUMNS,
    ),
    StageSpec(
        "ingest",
        "source",
        "01_ingest",
        "ingest",
        "corpus_pipeline.ingest.stage:IngestStage",
        "datasets (JSON lines or arrays, Parquet, CSV/TSV, text, MediaWiki XML dumps) -> documents",
        step="corpus_pipeline.pipeline.stage_steps:ingest",
        input="datasets",
        options=(
            StageOption(
                "--format",
                "auto (by content, then name), jsonl, parquet, csv, text, wikipedia",
                config_key="ingest.format",
            ),
            StageOption("--text-field", "the field or column holding the text", config_key="ingest.text_field"),
            StageOption("--id-field", "the field or column holding the id", config_key="ingest.id_field"),
            StageOption("--source", "the source name (the `source` column)", config_key="ingest.source"),
            StageOption("--domain", "the domain when no domains.rules entry matches", config_key="ingest.domain"),
            StageOption(
                "--limit", "at most N records in all, the files in order (a first look)", config_key="ingest.limit"
            ),
            StageOption(
                "--sample", "keep this FRACTION of the records, seeded (ingest.sample_seed)", config_key="ingest.sample"
            ),
        ),
        also_reads=("domains", "storage"),
        config="corpus_pipeline.ingest.config:IngestConfig",
        drop_reasons=tuple(
            "not_json bad_csv_row missing_text text_not_string invalid_utf8 empty_text too_large invalid_id "
            "duplicate_id wiki_redirect not_an_article read_error".split()
        ),
        writes=_SOURCE_COLUMNS,
    ),
    StageSpec(
        "langid",
        "document",
        "02_langid",
        "langid",
        "corpus_pipeline.langid.stage:LangIdStage",
        "language ID (fastText lid.176)",
        config="corpus_pipeline.langid.config:LangIdConfig",
        drop_reasons=("language_unknown", "language_not_allowed", "low_language_score"),
        reads=("text",),
        writes=("language", "language_score", "language_topk"),
    ),
    StageSpec(
        "normalize",
        "document",
        "03_normalize",
        "normalize",
        "corpus_pipeline.normalize.stage:NormalizeStage",
        "Unicode/whitespace cleanup, boilerplate lines",
        config="corpus_pipeline.normalize.config:NormalizeConfig",
        drop_reasons=("empty_after_normalize",),
        reads=("text",),
        writes=("text",),
    ),
    StageSpec(
        "embed",
        "document",
        "03b_embed",
        "embeddings",
        "corpus_pipeline.embeddings.stage:EmbeddingsStage",
        "sentence embeddings (float16 `embedding` column) for semantic dedup and quality; opt-in",
        # Before dedup so that its `semantic` method reads the vectors; a transformer on two CPU
        # cores costs more than every other stage together, hence opt-in.
        opt_in=True,
        config="corpus_pipeline.embeddings.config:EmbeddingsConfig",
        reads=("text",),
        writes=("embedding", "embedding_model"),
    ),
    StageSpec(
        "dedup",
        "global",
        "04_dedup",
        "dedup",
        "corpus_pipeline.dedup.stage:DedupStage",
        "drop exact and near-duplicate documents (MinHash LSH; on Spark when the input outgrows the driver)",
        report="corpus_pipeline.report.corpus_figures:dedup_section",
        step="corpus_pipeline.pipeline.stage_steps:dedup",
        options=(
            StageOption(
                "--index",
                "cross-snapshot index (<data_root>/index): drop what it holds",
                run_dir_default="{data_root}/index",
            ),
        ),
        many_inputs=True,
        # storage: the index, on a store too, listed through the run's storage; engine: memory_mb,
        # which decides whether the driver decides (dedup/driver_budget.py).
        also_reads=("storage", "engine"),
        config="corpus_pipeline.dedup.config:DedupConfig",
        preflight=("corpus_pipeline.dedup.preflight:semantic_needs_embeddings",),
        drop_reasons=tuple(
            "url_duplicate exact_duplicate id_collision minhash_duplicate simhash_duplicate semantic_duplicate "
            "empty_after_paragraph_dedup".split()
        ),
    ),
    StageSpec(
        "pii",
        "document",
        "05_pii",
        "pii",
        "corpus_pipeline.pii.stage:PiiStage",
        "find, count and redact PII and secrets; drop PII-dense documents",
        report="corpus_pipeline.report.corpus_figures:pii_section",
        config="corpus_pipeline.pii.config:PiiConfig",
        drop_reasons=("pii_density",),
        reads=("text",),
        writes=("text", "pii_density"),
    ),
    StageSpec(
        "quality",
        "document",
        "06_quality",
        "quality",
        "corpus_pipeline.quality.stage:QualityStage",
        "quality signals (Gopher, C4, FineWeb, coverage, entropy, blocklists, classifier) and keep rules",
        report="corpus_pipeline.report.quality_figures:quality_section",
        gates=("corpus_pipeline.quality.gates:quality_gates",),
        config="corpus_pipeline.quality.config:QualityConfig",
        # Its drop reasons are its keep rules' and blocklists' names, from the config
        # (schemas/document.md, "quality rules").
        reads=("id", "text", "language", "url", "domain"),
        writes=("gopher_word_count", "vocab_coverage", "char_entropy", "dup_content_hash", "quality_score"),
    ),
    StageSpec(
        "decontaminate",
        "document",
        "07_decontaminate",
        "decontamination",
        "corpus_pipeline.decontam.stage:DecontaminateStage",
        "find evaluation items (HumanEval, your sets) by n-grams: drop the document or cut them out",
        report="corpus_pipeline.report.decontam_figures:decontamination_section",
        options=(
            StageOption(
                "--eval",
                "eval sets instead of decontamination.eval_sets: builtin names (humaneval) or files",
                many=True,
            ),
        ),
        gates=("corpus_pipeline.decontam.gates:decontamination_gates",),
        config="corpus_pipeline.decontam.config:DecontaminationConfig",
        preflight=("corpus_pipeline.decontam.preflight:eval_set_problems",),
        notes="corpus_pipeline.pipeline.record_notes:decontamination_notes",
        drop_reasons=("contaminated",),
        reads=("id", "text"),
        writes=("text", "decontam_items_matched", "decontam_spans_removed", "decontam_chars_removed"),
    ),
    StageSpec(
        "train-tokenizer",
        "global",
        "tokenizer",
        "train_tokenizer",
        "corpus_pipeline.tokenize.train_stage:TrainTokenizerStage",
        "byte-level BPE on a seeded, language-mixed sample -> DIR/tokenizer.json",
        step="corpus_pipeline.pipeline.stage_steps:train_tokenizer",
        output="tokenizer",
        options=(StageOption("--vocab-size", "the vocabulary size", config_key="train_tokenizer.vocab_size"),),
        consumes_corpus=True,
        config="corpus_pipeline.tokenize.config:TrainTokenizerConfig",
    ),
    StageSpec(
        "tokenize",
        "global",
        "tokens",
        "tokenize",
        "corpus_pipeline.tokenize.stage:TokenizeStage",
        "documents -> Megatron .bin/.idx token shards + manifest.json",
        step="corpus_pipeline.pipeline.stage_steps:tokenize",
        output="tokens",
        options=(_TOKENIZER,),
        consumes_corpus=True,
        also_reads=("storage",),  # a tokenizer on a store is fetched through the run's storage
        config="corpus_pipeline.tokenize.config:TokenizeConfig",
    ),
    StageSpec(
        "mix",
        "global",
        "mix",
        "mix",
        "corpus_pipeline.mix.stage:MixStage",
        "documents of one or more stages -> token shards at target group shares (mix.targets) + documents.parquet",
        step="corpus_pipeline.pipeline.stage_steps:mix",
        output="tokens",
        options=(_TOKENIZER,),
        consumes_corpus=True,
        many_inputs=True,
        also_reads=("tokenize", "engine", "storage"),
        config="corpus_pipeline.mix.config:MixConfig",
        preflight=("corpus_pipeline.mix.preflight:target_problems",),
    ),
)

_BY_NAME = {spec.name: spec for spec in STAGES}


def resolve(reference: str):
    """What a "module:name" reference of an entry names (its factory, config model, gates...),
    imported only when asked for, so that this module stays importable without the project."""
    module, _, name = reference.partition(":")
    return getattr(importlib.import_module(module), name)


def stage_spec(name: str) -> StageSpec:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}: expected one of {', '.join(_BY_NAME)}") from None


def main(argv: list[str]) -> int:
    """`registry.py`: the stage names (for the Makefile); `--help-lines`: one `make` help line each."""
    if argv == ["--help-lines"]:
        for spec in STAGES:
            where = spec.directory.format(data_root="DATA_ROOT", run_id="RUN_ID")
            print(f"  make {spec.name:<16} {spec.help} -> {where if '/' in where else 'RUN_DIR/' + where}")
    else:
        print(" ".join(spec.name for spec in STAGES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
