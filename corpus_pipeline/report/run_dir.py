"""What a run directory holds, for the report: each stage's status and stats, and its Parquet columns.

A stage counts as run only with its `_SUCCESS` (schemas/stage_dir.md: a stage without it never happened); a
run that stopped early simply has fewer. A file that is there but cannot be read (corrupt JSON,
truncated Parquet) is a `ReportInputError` naming the file: the report never guesses around it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.engine.registry import STAGES as REGISTRY
from corpus_pipeline.engine.store.layout import KEPT_HERE, RUN_RECORD
from corpus_pipeline.engine.store.output_guard import read_marker
from corpus_pipeline.engine.store.stage_dir import STATS_FILE, SUCCESS, MissingInputError, input_parts, read_success
from corpus_pipeline.engine.store.task_output import REJECTED_DIR
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.errors import OutputRefusedError
from corpus_pipeline.storage.locations import Location, child
from corpus_pipeline.storage.parquet import columns_present

# The report reads local stage directories (a run on a store through its local copy, store_copy.py).
LOCAL = Storage()

# Directory and stage name of the stages that count documents, in pipeline order (the registry's).
STAGES: tuple[tuple[str, str], ...] = tuple(
    (spec.directory, spec.name) for spec in REGISTRY if spec.output in ("documents", "tokens")
)
DOCUMENT_STAGES = tuple(spec.name for spec in REGISTRY if spec.output == "documents")


class ReportInputError(ValueError):
    """A run directory, or a file in it, that the report cannot read."""


class NotARunError(OutputRefusedError):
    """A folder that holds no finished stage: the report would write its page into the user's folder."""


def refuse_unless_run(run_dir: Location, storage: Storage) -> None:
    """A run directory holds the record of a `run` (run_record.json), or a finished stage of ours
    (`<stage>/_SUCCESS`, a stage directory of any name), directly or in `sources/<name>/`."""
    if storage.kind(str(run_dir)) == "missing":
        raise ReportInputError(f"{run_dir}: no such directory")
    if storage.kind(str(child(run_dir, RUN_RECORD))) == "file":
        return
    base = str(run_dir).rstrip("/") + "/"
    stages = [
        uri[: -len(SUCCESS) - 1]
        for uri in storage.list_under(str(run_dir))
        if uri.endswith(f"/{SUCCESS}") and uri[len(base) :].count("/") in (1, 3)  # <stage>/, sources/<n>/<stage>/
    ]
    if not any(read_marker(stage, storage) is not None for stage in stages):
        raise NotARunError(
            f"{run_dir} is not a run directory: it holds no {RUN_RECORD} and no finished stage "
            "(<stage>/_SUCCESS); the report writes nothing there"
        )


@dataclass
class StageRun:
    name: str
    directory: Path
    stats: StageStats | None  # None: the stage did not run (no _SUCCESS)

    @property
    def done(self) -> bool:
        return self.stats is not None


def read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReportInputError(f"cannot read {path}: {error}") from None


def read_stage(directory: Path, name: str) -> StageRun:
    if not (directory / SUCCESS).exists():
        return StageRun(name, directory, None)
    read_json(directory / SUCCESS)
    stats_path = directory / STATS_FILE
    if not stats_path.exists():
        raise ReportInputError(f"{directory} has {SUCCESS} but no {STATS_FILE}")
    try:
        stats = StageStats.from_dict(read_json(stats_path))
    except (KeyError, TypeError) as error:
        raise ReportInputError(f"{stats_path}: not a stage stats file (missing {error})") from None
    return StageRun(name, directory, stats)


def _finished_stages(run_dir: Path) -> dict[str, Path]:
    """Stage name -> its directory, for every finished stage directly under `run_dir`, whatever the
    directory is called (the verbs' --output may name it anything): its `_SUCCESS` says the stage.
    The registry's directory name wins when two hold the same stage."""
    found: dict[str, Path] = {}
    for directory in sorted(path for path in run_dir.iterdir() if (path / SUCCESS).is_file()):
        stage = read_json(directory / SUCCESS).get("stage")
        if stage is not None and (stage not in found or directory.name == _DIRECTORY.get(stage)):
            found[stage] = directory
    return found


_DIRECTORY = {name: directory for directory, name in STAGES}


def read_run(run_dir: Path) -> dict[str, StageRun]:
    """Every stage of the run by name, run or not, in pipeline order."""
    if not run_dir.is_dir():
        raise ReportInputError(f"{run_dir} is not a run directory (no such directory)")
    finished = _finished_stages(run_dir)
    return {name: read_stage(finished.get(name, run_dir / directory), name) for directory, name in STAGES}


def crawl_runs(run_dir: Path) -> dict[str | None, StageRun]:
    """The crawls a run made (their WARC files live under <data_root>/crawl/, outside the run
    directory), by source (None: the run's one web source), as its run record names them. The
    record keeps a relative data_root's path as given, relative to where the run was started: the
    run directory or the nearest folder above it where that path is a finished crawl."""
    record_path = run_dir / RUN_RECORD
    if not record_path.is_file():
        return {}
    found = {}
    for step in read_json(record_path).get("steps", []):
        if step.get("step") != "crawl" or not step.get("output") or "://" in step["output"]:
            continue
        output = Path(step["output"])
        places = [output] if output.is_absolute() else [base / output for base in (run_dir, *run_dir.resolve().parents)]
        crawl = next((place for place in places if _stage_of(place) == "crawl"), None)
        if crawl is not None:
            found[step.get("source")] = read_stage(crawl, "crawl")
    return found


def _stage_of(directory: Path) -> str | None:
    return read_json(directory / SUCCESS).get("stage") if (directory / SUCCESS).is_file() else None


def kept_parts(stage: StageRun) -> list[Path]:
    """The stage's kept documents, where they are: a stage fused with later ones keeps none of its
    own, its `_SUCCESS` names the directory of the pass's last stage, which holds them (without
    this every fused quality histogram read "kept (0)")."""
    if not (stage.directory / SUCCESS).is_file():  # a directory of parts given as a stage (tests, tools)
        return sorted(stage.directory.glob("part-*.parquet"))
    kept = read_success(stage.directory, LOCAL).get("kept", KEPT_HERE)
    directory = stage.directory if kept == KEPT_HERE else stage.directory.parent / kept
    try:
        return [Path(part) for part in input_parts(directory, LOCAL)]
    except MissingInputError as error:
        raise ReportInputError(f"{stage.directory}: its kept documents are not readable: {error}") from None


def rejected_parts(stage: StageRun) -> dict[str, list[Path]]:
    """Drop reason -> its Parquet files, reasons in name order."""
    found: dict[str, list[Path]] = {}
    for folder in sorted((stage.directory / REJECTED_DIR).glob("reason=*")):
        found[folder.name.removeprefix("reason=")] = sorted(folder.glob("*.parquet"))
    return found


def parquet_file(path: Path) -> pq.ParquetFile:
    try:
        return pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as error:
        raise ReportInputError(f"cannot read {path}: {error}") from None


def read_columns(paths: list[Path], columns: list[str]) -> pa.Table:
    """`columns` of every file, those a file lacks left out (signal columns come with later stages)."""
    tables = []
    for path in paths:
        file = parquet_file(path)
        present = columns_present(file, columns)
        try:
            tables.append(file.read(columns=present))
        except (OSError, pa.ArrowException) as error:
            raise ReportInputError(f"cannot read {path}: {error}") from None
    if not tables:
        return pa.table({})
    return pa.concat_tables(tables, promote_options="default")


def first_rows(paths: list[Path], columns: list[str], count: int) -> list[dict]:
    """The first `count` rows over `paths`, reading no more batches than that takes."""
    rows: list[dict] = []
    for path in paths:
        file = parquet_file(path)
        present = columns_present(file, columns)
        try:
            for batch in file.iter_batches(batch_size=max(count, 1), columns=present):
                rows += batch.to_pylist()[: count - len(rows)]
                if len(rows) >= count:
                    return rows
        except (OSError, pa.ArrowException) as error:
            raise ReportInputError(f"cannot read {path}: {error}") from None
    return rows


def rows_at(path: Path, row_numbers: list[int], columns: list[str]) -> list[dict]:
    """Rows of one file by their number in it, reading only the row groups that hold them."""
    file = parquet_file(path)
    present = columns_present(file, columns)
    rows: dict[int, dict] = {}
    start = 0
    try:
        for group in range(file.num_row_groups):
            size = file.metadata.row_group(group).num_rows
            wanted = [n for n in row_numbers if start <= n < start + size]
            if wanted:
                table = file.read_row_group(group, columns=present)
                for n in wanted:
                    rows[n] = table.slice(n - start, 1).to_pylist()[0]
            start += size
    except (OSError, pa.ArrowException) as error:
        raise ReportInputError(f"cannot read {path}: {error}") from None
    return [rows[n] for n in row_numbers if n in rows]
