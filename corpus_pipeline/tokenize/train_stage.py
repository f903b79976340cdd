"""train-tokenizer: language totals -> seeded sample plan -> sample streamed into the BPE trainer.

Its stage directory holds tokenizer.json and tokenizer.training.json (what it was trained on), with
the lifecycle's `_stats.json` and `_SUCCESS`: the same input and config do nothing on a rerun.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from corpus_pipeline.engine.whole_corpus import STATS_DIR, Executor, GlobalStage, input_parts, read_stage_bytes
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage, local_files
from corpus_pipeline.storage.locations import Location, child
from corpus_pipeline.storage.parquet import parquet_schema
from corpus_pipeline.tokenize import local_jobs
from corpus_pipeline.tokenize.bpe import save_tokenizer, train_bpe, vocab_size
from corpus_pipeline.tokenize.config import TrainTokenizerConfig
from corpus_pipeline.tokenize.manifest import TOKENIZER_FILE
from corpus_pipeline.tokenize.pretokenize import split_long_text
from corpus_pipeline.tokenize.sample import SamplePlan, plan_sample

STAGE = "train-tokenizer"
TRAINING_RECORD = "tokenizer.training.json"
_TRAIN_BATCH = 1_000  # texts per batch handed to the trainer


def tokenizer_file(path: Path) -> Path:
    """A tokenizer given as a file, or as the directory train-tokenizer wrote."""
    path = Path(path)
    return path / TOKENIZER_FILE if path.is_dir() else path


def read_training_record(directory: Location, storage: Storage) -> dict:
    return json.loads(read_stage_bytes(directory, TRAINING_RECORD, storage))


def _sample_batches(texts: Iterator[tuple[str, str]], plan: SamplePlan, max_chars: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for language, text in texts:
        text = next(split_long_text(text, max_chars))[0]
        share = plan.languages[language]
        share.sample_docs += 1
        share.sample_bytes += len(text.encode("utf-8", "surrogatepass"))
        batch.append(text)
        if len(batch) >= _TRAIN_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


class TrainTokenizerStage(GlobalStage):
    name = STAGE

    def __init__(self, config: TrainTokenizerConfig | None = None):
        self.config = config or TrainTokenizerConfig()

    @staticmethod
    def describe(output: Path, storage: Storage) -> str:
        """The tokenizer and the sample it was trained on, per language."""
        record = read_training_record(output, storage)
        lines = [f"{child(output, TOKENIZER_FILE)}: {record['vocab_size']:,} ids, sha256 {record['sha256']}"]
        header = ("corpus docs", 12), ("corpus MB", 11), ("weight", 8), ("sample docs", 13), ("sample MB", 11)
        lines.append(f"  {'language':<10}" + "".join(f"{name:>{width}}" for name, width in header))
        for language, share in record["sample"]["languages"].items():
            lines.append(
                f"  {language:<10}{share['corpus_docs']:>12,}{share['corpus_bytes'] / 1e6:>11.1f}"
                f"{share['weight']:>8.3f}{share['sample_docs']:>13,}{share['sample_bytes'] / 1e6:>11.1f}"
            )
        lines += [f"  note: {note}" for note in record["sample"]["notes"]]
        return "\n".join(lines)

    def run(self, input_dir: Location, work, executor: Executor) -> dict:
        parts = input_parts(input_dir, work.storage)
        schema = parquet_schema(work.storage, parts[0]) if parts else None
        # The same two jobs in this process (pyarrow) or on Spark: same hash, same sample.
        jobs, where = (local_jobs, (parts, schema))
        if executor.distributed:
            from corpus_pipeline.tokenize import spark_jobs

            jobs, where = (spark_jobs, (executor.session(), parts, schema))
        totals = jobs.language_totals(*where, storage=work.storage) if schema is not None else {}
        plan = plan_sample(totals, self.config)
        if not plan.thresholds:
            raise ValueError(f"{input_dir}: no documents to train a tokenizer on (languages: {sorted(totals)})")
        texts = jobs.training_texts(*where, plan, storage=work.storage)
        tokenizer = train_bpe(_sample_batches(texts, plan, self.config.max_document_chars), self.config)
        sha = save_tokenizer(tokenizer, work.file(TOKENIZER_FILE))
        record = {"sha256": sha, "vocab_size": vocab_size(tokenizer), "sample": plan.to_dict()}
        local_files.put_bytes(
            work.file(TRAINING_RECORD), (json.dumps(record, indent=2, ensure_ascii=False) + "\n").encode()
        )
        # It reads every document and drops none: in == kept, the sample in `extra`.
        stats = StageStats(STAGE, tasks=1)
        for language, (docs, nbytes) in sorted(totals.items()):
            stats.add_in(docs, nbytes)
            stats.add_kept(docs, nbytes)
            stats.count("sample_docs", language, plan.languages[language].sample_docs)
        stats.write(work.file(f"{STATS_DIR}/train.json"))
        return {"sha256": sha, "vocab_size": record["vocab_size"]}
