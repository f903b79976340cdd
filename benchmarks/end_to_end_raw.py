"""The raw cost of the pipeline's per-document work: each library called alone, in this process, on
the very documents the matching stage of a finished run read (extract's output for langid, langid's
for normalize, ...), so a raw figure and a pipeline step measure the same work. A stage that ran
fused with the ones after it passed its documents on without writing them (engine.write_intermediate
false, the default): those are rebuilt here, untimed, by rerunning that stage alone in this process
with the run's config on the documents it read (the same input and config give the same documents).

Two kinds of line: a library's call (warcio, trafilatura, fastText, ftfy, datasketch, HF tokenizers),
and the project's own per-document code where no library does the job (dedup's word/CJK shingles,
the PII detector, the quality signals). Everything else a pipeline run spends (Parquet, rows, stats,
Spark, the JVM, the gates, the report) is what "the pipeline itself costs".
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import ftfy
import pyarrow as pa
import pyarrow.parquet as pq
from bench_extract import capture_calls, raw_extract
from bench_langid import raw_predict
from bench_pii import detector_seconds
from common import clocks
from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.registry import stage_spec
from corpus_pipeline.engine.stage_order import previous_documents_stage
from corpus_pipeline.engine.store.stage_dir import KEPT_HERE, input_parts, read_success
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage

ENCODE_BATCH = 1_000  # texts per encode_batch call, as benchmarks/bench_tokenize.py


@dataclass
class RawCost:
    step: str  # the pipeline step whose work this is
    what: str
    wall_s: float
    cpu_s: float  # this process, all threads (HF tokenizers encodes on several)
    docs: int
    library: bool  # False: the project's own code, where no library does the work

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class MeasuredRun:
    """A finished run, and what rebuilds the documents its fused stages passed on."""

    run_dir: Path
    parts: list[str]  # the WARC files its extract read
    config: PipelineConfig  # the run's own config
    scratch: Path  # where passed-on documents are rebuilt

    def documents(self, stage: str) -> Path:
        """The stage directory holding the documents `stage` kept in the run: the run's own, or,
        when the stage ran fused and passed them on, the stage rerun alone into `scratch`."""
        directory = self.run_dir / stage_spec(stage).directory
        if read_success(directory, storage=Storage()).get("kept", KEPT_HERE) == KEPT_HERE:
            return directory
        previous = previous_documents_stage(stage)
        source = self.parts if previous is None else self.documents(previous.name)
        rebuilt = self.scratch / stage_spec(stage).directory
        return run_stage(stage, source, rebuilt, self.config, LocalExecutor(self.config.spark)).output


def stage_rows(run: MeasuredRun, step: str, columns: list[str]) -> list[dict]:
    """The documents `step` read in the run (the previous documents stage's kept ones)."""
    directory = run.documents(previous_documents_stage(step).name)
    return pa.concat_tables(
        pq.read_table(part, columns=columns) for part in input_parts(directory, storage=Storage())
    ).to_pylist()


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of work()."""
    wall0, cpu0 = clocks()
    work()
    wall1, cpu1 = clocks()
    return wall1 - wall0, cpu1 - cpu0


def warc_read(parts: list[str]) -> None:
    """Plain warcio: every record of every part, each payload read to the end."""
    for path in parts:
        with open(path, "rb") as stream:
            for record in ArchiveIterator(stream):
                record.content_stream().read()


def extract_costs(parts: list[str], records: int, config: PipelineConfig) -> list[RawCost]:
    wall, cpu = timed(lambda: warc_read(parts))
    warc = RawCost("extract", "warcio ArchiveIterator + payload read (gunzip included)", wall, cpu, records, True)
    calls = capture_calls(config, parts)  # the stage's own engine calls: same decoded HTML and url
    wall, cpu, _ = raw_extract(config, calls)
    engine = f"the {config.extract.engine} engine (extract/engines.py), the stage's calls"
    return [warc, RawCost("extract", engine, wall, cpu, len(calls), True)]


def langid_cost(run: MeasuredRun, model_path: str) -> RawCost:
    from corpus_pipeline.langid.stage import load_model

    texts = [row["text"].replace("\n", " ") for row in stage_rows(run, "langid", ["text"])]
    wall, cpu = raw_predict(load_model(model_path), texts, 1)
    return RawCost("langid", "fastText lid.176.ftz predict, whole text, k=1", wall, cpu, len(texts), True)


def normalize_cost(run: MeasuredRun) -> RawCost:
    from corpus_pipeline.normalize.mojibake import FTFY_CONFIG

    texts = [row["text"] for row in stage_rows(run, "normalize", ["text"])]

    def fix_all() -> None:
        for text in texts:
            unicodedata.normalize("NFC", ftfy.fix_text(text, FTFY_CONFIG))

    wall, cpu = timed(fix_all)
    return RawCost("normalize", "ftfy.fix_text (the stage's repairs) + NFC, every text", wall, cpu, len(texts), True)


def dedup_costs(run: MeasuredRun, config: PipelineConfig) -> list[RawCost]:
    """Shingles (the project's: word 5-grams, CJK character 5-grams), then datasketch MinHash of
    them and a MinHashLSH insert + query of every document at the stage's threshold and weights."""
    from datasketch import MinHash, MinHashLSH
    from xxhash import xxh32_intdigest

    from corpus_pipeline.dedup.shingles import document_shingles

    settings = config.dedup
    rows = stage_rows(run, "dedup", ["text", "language"])
    shingled: list[set[str]] = []

    def shingle_all() -> None:
        shingled.extend(
            document_shingles(row["text"], row["language"], settings.word_ngram, settings.char_ngram) for row in rows
        )

    wall, cpu = timed(shingle_all)
    shingles = RawCost("dedup", "shingles (project code: dedup/shingles.py)", wall, cpu, len(rows), False)

    def minhash_and_lsh() -> None:
        weights = (settings.false_positive_weight, settings.false_negative_weight)
        lsh = MinHashLSH(threshold=settings.threshold, num_perm=settings.num_perm, weights=weights)
        for index, doc_shingles in enumerate(shingled):
            minhash = MinHash(settings.num_perm, settings.seed, hashfunc=xxh32_intdigest, scheme="legacy")
            minhash.update_batch([shingle.encode() for shingle in doc_shingles])
            lsh.query(minhash)
            lsh.insert(index, minhash)

    wall, cpu = timed(minhash_and_lsh)
    what = f"datasketch MinHash ({settings.num_perm} perm, xxh32) + MinHashLSH query+insert"
    return [shingles, RawCost("dedup", what, wall, cpu, len(rows), True)]


def pii_cost(run: MeasuredRun, config: PipelineConfig) -> RawCost:
    from corpus_pipeline.pii.detector import PiiDetector

    texts = [row["text"] for row in stage_rows(run, "pii", ["text"])]
    detector = PiiDetector(config.pii)
    wall, cpu = timed(lambda: detector_seconds(detector, texts))
    return RawCost("pii", "PII detector find + redact (project code: its regexes)", wall, cpu, len(texts), False)


def quality_cost(run: MeasuredRun, config: PipelineConfig) -> RawCost:
    from corpus_pipeline.quality.stage import QualityStage

    rows = stage_rows(run, "quality", ["text", "language", "url"])
    stage = QualityStage(config.quality)
    stage.setup()
    for language in {row["language"] for row in rows}:  # stop words and vocabularies load untimed
        stage.language_context(language)

    def signal_all() -> None:
        for row in rows:
            stage.signals(row["text"], row["language"], row["url"])

    wall, cpu = timed(signal_all)
    return RawCost("quality", "quality signals (project code: quality/)", wall, cpu, len(rows), False)


def tokenize_cost(run: MeasuredRun, tokenizer_path: Path) -> RawCost:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    texts = [row["text"] for row in stage_rows(run, "tokenize", ["text"])]

    def encode_all() -> None:
        for start in range(0, len(texts), ENCODE_BATCH):
            tokenizer.encode_batch(texts[start : start + ENCODE_BATCH], add_special_tokens=False)

    wall, cpu = timed(encode_all)
    return RawCost("tokenize", "HF tokenizers encode_batch (all cores' threads)", wall, cpu, len(texts), True)


def raw_costs(
    parts: list[str],
    records: int,
    run_dir: Path,
    config: PipelineConfig,
    tokenizer: Path,
    log: Callable[[str], None],
    scratch: Path,
) -> list[RawCost]:
    """`scratch`: where the documents the run's fused stages passed on are rebuilt (untimed)."""
    from corpus_pipeline.langid.stage import bundled_model_path

    run = MeasuredRun(run_dir, parts, config, scratch)
    costs: list[RawCost] = []
    log("raw: warcio + trafilatura on the WARC parts")
    costs += extract_costs(parts, records, config)
    log("raw: fastText, ftfy + NFC, shingles + datasketch, PII, quality signals, encode_batch")
    log("  (first rebuilding, untimed, the documents the run's fused stages passed on without writing them)")
    costs.append(langid_cost(run, config.langid.model_path or bundled_model_path()))
    costs.append(normalize_cost(run))
    costs += dedup_costs(run, config)
    costs.append(pii_cost(run, config))
    costs.append(quality_cost(run, config))
    costs.append(tokenize_cost(run, tokenizer))
    return costs
