"""What a stage is, for the runners: plain Python over dict rows, no Spark, no files.

A `DocumentStage` reads documents and writes signal columns into each row, then says keep or drop.
A `SourceStage` turns one input file (a WARC, say) into rows. Both are pickled to Spark executors
with their config only; heavy resources (models) are loaded lazily in `setup()`, once per process.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

from corpus_pipeline.stats import StageStats


class StageRefusedError(ValueError):
    """A stage that found, after it began, that its input and config cannot give an output (mix
    targets the data cannot meet): the lifecycle removes its work, since a rerun of the same config
    is refused again."""


@dataclass(frozen=True)
class Drop:
    """Why a row leaves the stage. `reason` is a short snake_case key (it names a directory);
    `detail` is free text for a person (the exception message, the score that missed the bar)."""

    reason: str
    detail: str = ""


Verdict = Drop | None  # None: keep


@dataclass(frozen=True)
class VerdictTable:
    """Rows and their verdicts as columns: `reasons` null where a row is kept, else why it is not."""

    table: pa.Table
    reasons: pa.Array
    details: pa.Array

    @classmethod
    def of(cls, table: pa.Table, verdicts: list[Verdict]) -> VerdictTable:
        reasons = pa.array([None if v is None else v.reason for v in verdicts], pa.string())
        details = pa.array([None if v is None else v.detail for v in verdicts], pa.string())
        return cls(table, reasons, details)


class DocumentStage(ABC):
    name: str = ""
    # Columns this stage fills; appended to the input schema when not already present.
    output_fields: tuple[pa.Field, ...] = ()
    # The columns the stage reads, handed to it as dict rows; None: every column. A stage that reads
    # one column of twenty pays for one: `to_pylist` of a whole row is most of a light stage's cost.
    input_columns: tuple[str, ...] | None = None
    # Columns of the input the stage may rewrite (besides `output_fields`); with input_columns None,
    # every column is written back.
    rewrites: tuple[str, ...] = ()

    def setup(self) -> None:  # noqa: B027 - an optional hook, not abstract
        """Load heavy resources. Called by the runner in the process that runs the stage."""

    @abstractmethod
    def process(self, doc: dict, stats: StageStats) -> Verdict:
        """Update `doc` (its `input_columns`) in place (signals, rewritten text); return None to keep
        it, or a Drop."""

    def process_batch(self, docs: list[dict], stats: StageStats) -> list[Verdict]:
        """Override when the library has a faster batched call."""
        return [self.process(doc, stats) for doc in docs]

    def output_schema(self, input_schema: pa.Schema) -> pa.Schema:
        schema = input_schema
        for field in self.output_fields:
            if schema.get_field_index(field.name) < 0:
                schema = schema.append(field)
        return schema

    def config_fingerprint(self) -> str:
        """What, besides the input, decides the output; part of the skip-on-rerun check."""
        return repr(getattr(self, "config", None))


class SourceStage(ABC):
    """Reads one input file, or one byte span of it (`spans`), into rows; every record comes out,
    kept or with a Drop. What else a source stage needs is handed to it by the sections its registry
    entry reads (`also_reads`): extract and ingest are given the run's `storage` (how their files
    are reached) and `domains` (the labelling of their documents' `domain`, stages/domains.py)."""

    name: str = ""
    config: object  # its config section, set by the stage's __init__

    def setup(self) -> None:  # noqa: B027 - an optional hook, not abstract
        """Load heavy resources once per process."""

    @abstractmethod
    def input_files(self, arguments: list[str]) -> list[str]:
        """The files `--input` names (files, directories, globs), sorted: one task each (or one per
        span: `spans`)."""

    def spans(self, path: str, task_bytes: int) -> list[tuple[int, int]]:
        """Byte spans of `path`, about `task_bytes` each, that are read as tasks of their own (the
        stage's `read_tables` and `read` are then given `span=`, and only then: a stage that plans
        none need not take it); []: the file is one task. From the input alone."""
        return []

    @abstractmethod
    def read(self, path: str, stats: StageStats, span: tuple[int, int] | None = None) -> Iterator[tuple[dict, Verdict]]:
        """Yield every record of `path` (of its `span`, where `spans` planned one) as a row, with
        None (keep) or the Drop that rejects it, calling `stats.count_in(payload bytes)` once per
        record yielded."""

    def read_tables(
        self, path: str, stats: StageStats, rows: int, span: tuple[int, int] | None = None
    ) -> Iterator[VerdictTable]:
        """The records of `path` (of its `span`) as tables of up to `rows` rows in `output_schema()`,
        each with its verdicts. Override to build Arrow columns without a dict per row (ingest's
        Parquet batches)."""
        batch: list[dict] = []
        verdicts: list[Verdict] = []
        for row, verdict in self.read(path, stats, **({} if span is None else {"span": span})):
            batch.append(row)
            verdicts.append(verdict)
            if len(batch) >= rows:
                yield VerdictTable.of(pa.Table.from_pylist(batch, schema=self.output_schema()), verdicts)
                batch, verdicts = [], []
        yield VerdictTable.of(pa.Table.from_pylist(batch, schema=self.output_schema()), verdicts)

    @abstractmethod
    def output_schema(self) -> pa.Schema:
        """The Arrow schema of the rows `read` yields."""

    def config_fingerprint(self) -> str:
        return repr(self.config)


def text_bytes(doc: dict) -> int:
    return len((doc.get("text") or "").encode("utf-8", "surrogatepass"))
