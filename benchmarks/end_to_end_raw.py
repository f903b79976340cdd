"""The raw cost of the pipeline's per-document work: each library called alone, in this process, on
the very documents the matching stage of a finished run read (extract's output for langid, langid's
for normalize, ...), so a raw figure and a pipeline step measure the same work.

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
from corpus_pipeline.engine.stage_dir import input_parts

# The stage directory each step reads, as steps.py names them.
STAGE_INPUTS = {
    "langid": "01_extract",
    "normalize": "02_langid",
    "dedup": "03_normalize",
    "pii": "04_dedup",
    "quality": "05_pii",
    "tokenize": "06_quality",
}
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


def stage_rows(run_dir: Path, step: str, columns: list[str]) -> list[dict]:
    directory = run_dir / STAGE_INPUTS[step]
    return pa.concat_tables(pq.read_table(part, columns=columns) for part in input_parts(directory)).to_pylist()


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
    calls = capture_calls(config, parts)  # the stage's own calls: same decoded HTML, url, settings
    wall, cpu, _ = raw_extract(calls)
    return [warc, RawCost("extract", "trafilatura.extract, the stage's calls", wall, cpu, len(calls), True)]


def langid_cost(run_dir: Path, model_path: str) -> RawCost:
    from corpus_pipeline.stages.langid import load_model

    texts = [row["text"].replace("\n", " ") for row in stage_rows(run_dir, "langid", ["text"])]
    wall, cpu = raw_predict(load_model(model_path), texts, 1)
    return RawCost("langid", "fastText lid.176.ftz predict, whole text, k=1", wall, cpu, len(texts), True)


def normalize_cost(run_dir: Path) -> RawCost:
    from corpus_pipeline.stages.normalize import FTFY_CONFIG

    texts = [row["text"] for row in stage_rows(run_dir, "normalize", ["text"])]

    def fix_all() -> None:
        for text in texts:
            unicodedata.normalize("NFC", ftfy.fix_text(text, FTFY_CONFIG))

    wall, cpu = timed(fix_all)
    return RawCost("normalize", "ftfy.fix_text (the stage's repairs) + NFC, every text", wall, cpu, len(texts), True)


def dedup_costs(run_dir: Path, config: PipelineConfig) -> list[RawCost]:
    """Shingles (the project's: word 5-grams, CJK character 5-grams), then datasketch MinHash of
    them and a MinHashLSH insert + query of every document at the stage's threshold and weights."""
    from datasketch import MinHash, MinHashLSH
    from xxhash import xxh32_intdigest

    from corpus_pipeline.dedup.shingles import document_shingles

    settings = config.dedup
    rows = stage_rows(run_dir, "dedup", ["text", "language"])
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


def pii_cost(run_dir: Path, config: PipelineConfig) -> RawCost:
    from corpus_pipeline.pii.detector import PiiDetector

    texts = [row["text"] for row in stage_rows(run_dir, "pii", ["text"])]
    detector = PiiDetector(config.pii)
    wall, cpu = timed(lambda: detector_seconds(detector, texts))
    return RawCost("pii", "PII detector find + redact (project code: its regexes)", wall, cpu, len(texts), False)


def quality_cost(run_dir: Path, config: PipelineConfig) -> RawCost:
    from corpus_pipeline.quality.stage import QualityStage

    rows = stage_rows(run_dir, "quality", ["text", "language", "url"])
    stage = QualityStage(config.quality)
    stage.setup()
    for language in {row["language"] for row in rows}:  # stop words and vocabularies load untimed
        stage.language_context(language)

    def signal_all() -> None:
        for row in rows:
            stage.signals(row["text"], row["language"], row["url"])

    wall, cpu = timed(signal_all)
    return RawCost("quality", "quality signals (project code: quality/)", wall, cpu, len(rows), False)


def tokenize_cost(run_dir: Path, tokenizer_path: Path) -> RawCost:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    texts = [row["text"] for row in stage_rows(run_dir, "tokenize", ["text"])]

    def encode_all() -> None:
        for start in range(0, len(texts), ENCODE_BATCH):
            tokenizer.encode_batch(texts[start : start + ENCODE_BATCH], add_special_tokens=False)

    wall, cpu = timed(encode_all)
    return RawCost("tokenize", "HF tokenizers encode_batch (all cores' threads)", wall, cpu, len(texts), True)


def raw_costs(
    parts: list[str], records: int, run_dir: Path, config: PipelineConfig, tokenizer: Path, log: Callable[[str], None]
) -> list[RawCost]:
    from corpus_pipeline.stages.langid import bundled_model_path

    costs: list[RawCost] = []
    log("raw: warcio + trafilatura on the WARC parts")
    costs += extract_costs(parts, records, config)
    log("raw: fastText, ftfy + NFC, shingles + datasketch, PII, quality signals, encode_batch")
    costs.append(langid_cost(run_dir, config.langid.model_path or bundled_model_path()))
    costs.append(normalize_cost(run_dir))
    costs += dedup_costs(run_dir, config)
    costs.append(pii_cost(run_dir, config))
    costs.append(quality_cost(run_dir, config))
    costs.append(tokenize_cost(run_dir, tokenizer))
    return costs
