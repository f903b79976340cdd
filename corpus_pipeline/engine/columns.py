"""The columns a chain of stages reads, checked against its input's schema before the first task.

A document stage is handed only the columns it names (`input_columns`), selected from each batch
of its input; a column the input lacks used to be left out silently, and the stage then met rows
without it (a KeyError in a task, or a None read as "no language"). Each registry entry declares
what it reads and writes (`StageSpec.reads`, `writes`), so a missing column is refused here, exit 2,
naming the column and the stage that writes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from corpus_pipeline.engine.registry import STAGES, StageSpec
from corpus_pipeline.engine.store.stage_dir import Location, MissingInputError, input_parts
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import parquet_metadata


class MissingColumnError(MissingInputError):
    """A stage reads a column its input does not hold (exit 2, like any input that is not there)."""


def unwritten_columns(chain: Sequence[StageSpec], columns: Iterable[str]) -> list[str]:
    """One problem per column a stage of `chain` reads that neither `columns` (its input's) nor a
    stage before it in the chain writes, naming the stage that would write it."""
    present = set(columns)
    problems = []
    for spec in chain:
        for column in spec.reads:
            if column not in present:
                writers = [other.name for other in STAGES if column in other.writes]
                by = f"written by {' or '.join(writers)}" if writers else "written by no stage"
                problems.append(f"{spec.name} reads column {column!r}, which its input does not hold ({by})")
        present |= set(spec.writes)
    return problems


def check_input_columns(chain: Sequence[StageSpec], input_dir: Location, storage: Storage) -> None:
    """MissingColumnError when the stage directory `input_dir` lacks a column the chain reads (its
    first part's footer gives the schema; an input with no parts holds no rows to misread)."""
    try:
        parts = input_parts(input_dir, storage)
    except MissingInputError:
        return  # not a finished stage: the lifecycle refuses it, in its own words
    if not parts:
        return
    schema = parquet_metadata(storage, str(parts[0])).schema.to_arrow_schema()
    problems = unwritten_columns(chain, schema.names)
    if problems:
        raise MissingColumnError(f"{input_dir}: " + "; ".join(problems))
