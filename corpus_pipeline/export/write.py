"""Writing an export: the output is refused unless it is absent or empty (a file, a folder with
files, an `s3://` prefix holding objects: exit 2 naming one), and nothing is ever deleted or
overwritten. Locally the files are written in a hidden folder beside the output and renamed into
place whole; on a store each file is uploaded when complete and the card last, so a dataset whose
README.md is there is complete.

Shards: `data/train-NNNNN-of-MMMMM.<suffix>`, as many as `shard_bytes` of text per shard needs,
rows split evenly in order (the Hub's and `datasets`' layout for one `train` split).
"""

from __future__ import annotations

import io
import math
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.engine.stage_dir import Location, child
from corpus_pipeline.export.card import CardFigures
from corpus_pipeline.export.documents import StageDocuments
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import local_path

SUFFIXES = {"parquet": ".parquet", "jsonl": ".jsonl.zst"}
DATA_DIR = "data"
CARD = "README.md"


class ExportOutputExists(ValueError):
    """The output already holds something: export writes only into nothing."""


def refuse_existing(output: Location, storage: Storage) -> None:
    kind = storage.kind(str(output))
    if kind in ("file", "other"):
        raise ExportOutputExists(f"{output}: is a file (export writes a folder, and never overwrites)")
    found = storage.entries_under(str(output)) if kind == "folder" else []
    if found:
        raise ExportOutputExists(f"{output}: not empty, it holds {found[0]} (export never overwrites)")


def shard_name(number: int, shards: int, fmt: str) -> str:
    return f"{DATA_DIR}/train-{number:05d}-of-{shards:05d}{SUFFIXES[fmt]}"


@dataclass
class Written:
    files: list[str] = field(default_factory=list)  # relative names, in order
    rows: list[int] = field(default_factory=list)


def _row_slices(batches: Iterator[pa.Table], per_shard: int) -> Iterator[tuple[int, pa.Table]]:
    """(shard number, a table of its rows), the rows of every shard in order."""
    shard, filled = 0, 0
    for table in batches:
        offset = 0
        while offset < table.num_rows:
            take = min(per_shard - filled, table.num_rows - offset)
            yield shard, table.slice(offset, take)
            offset += take
            filled += take
            if filled == per_shard:
                shard, filled = shard + 1, 0


class _ShardWriter:
    def __init__(self, path: Path, fmt: str, schema: pa.Schema):
        self.fmt = fmt
        if fmt == "parquet":
            self._parquet = pq.ParquetWriter(path, schema, compression="zstd")
        else:
            import zstandard

            self._file = open(path, "wb")  # noqa: SIM115 - closed in close()
            self._zstd = zstandard.ZstdCompressor(level=3).stream_writer(self._file)

    def write(self, table: pa.Table) -> None:
        if self.fmt == "parquet":
            self._parquet.write_table(table, row_group_size=10_000)
            return
        buffer = io.BytesIO()
        for row in table.to_pylist():
            buffer.write(orjson.dumps(row))
            buffer.write(b"\n")
        self._zstd.write(buffer.getvalue())

    def close(self) -> None:
        if self.fmt == "parquet":
            self._parquet.close()
        else:
            self._zstd.close()  # closes the file too


def write_export(
    documents: StageDocuments,
    output: Location,
    fmt: str,
    shard_bytes: int,
    card: CardFigures,
    render_card,
    storage: Storage,
) -> Written:
    """Write every document into the output's shards and the card; `render_card(figures, written)`
    gives the card's text once the figures of every row are in."""
    refuse_existing(output, storage)
    shards = max(1, math.ceil(documents.text_bytes / shard_bytes)) if documents.rows else 1
    per_shard = max(1, math.ceil(documents.rows / shards)) if documents.rows else 1
    shards = max(1, math.ceil(documents.rows / per_shard)) if documents.rows else 1
    on_store = local_path(output) is None  # a store: each shard uploaded when done, the card last
    local_out = Path(output)
    scratch = Path(tempfile.mkdtemp(prefix=".export-", dir=None if on_store else _parent(local_out)))
    (scratch / DATA_DIR).mkdir()
    written = Written()
    writer, current = None, -1
    for shard, table in _row_slices(documents.batches(storage), per_shard):
        if shard != current:
            if writer is not None:
                writer.close()
                _done(written, scratch, output, storage, on_store)
            name = shard_name(shard, shards, fmt)
            written.files.append(name)
            written.rows.append(0)
            writer, current = _ShardWriter(scratch / name, fmt, table.schema), shard
        writer.write(table)
        written.rows[-1] += table.num_rows
        card.add(table)
    if writer is None:  # no documents: one empty shard, so the dataset still loads
        name = shard_name(0, 1, fmt)
        written.files.append(name)
        written.rows.append(0)
        writer = _ShardWriter(scratch / name, fmt, _empty_schema(documents))
    writer.close()
    _done(written, scratch, output, storage, on_store)
    (scratch / CARD).write_text(render_card(card, written), encoding="utf-8")
    if on_store:
        storage.put_file(str(scratch / CARD), str(child(output, CARD)))
        os.remove(scratch / CARD)
        os.rmdir(scratch / DATA_DIR)
        os.rmdir(scratch)
    else:
        refuse_existing(output, storage)  # nothing came there while it was written
        os.rename(scratch, local_out)  # onto nothing, or onto an empty folder (POSIX rename)
    return written


def _empty_schema(documents: StageDocuments) -> pa.Schema:
    from corpus_pipeline.document import DOCUMENT_SCHEMA

    return pa.schema([DOCUMENT_SCHEMA.field(name) for name in documents.columns if name in DOCUMENT_SCHEMA.names])


def _parent(path: Path) -> str:
    parent = path.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    return str(parent)


def _done(written: Written, scratch: Path, output: Location, storage: Storage, on_store: bool) -> None:
    """A shard is complete: on a store, uploaded now (and its local copy removed)."""
    if on_store:
        name = written.files[-1]
        storage.put_file(str(scratch / name), str(child(output, name)))
        os.remove(scratch / name)
