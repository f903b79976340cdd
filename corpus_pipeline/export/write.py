"""Writing an export: the output is refused unless it is absent or empty (a file, a folder with
files, an `s3://` prefix holding objects: exit 2 naming one), and nothing of anyone else's is ever
deleted or overwritten; one export of an output at a time (its lock: exit 75). An intent,
`.export-intent.json`, names every file before the first is written; each file is placed when
complete (a hard link locally, an upload to a store), the card last, so a dataset whose README.md
is there is complete, and the intent goes. A killed export leaves only what its intent names: its
rerun removes that and writes the export again, with nothing to delete by hand.

Shards: `data/train-NNNNN-of-MMMMM.<suffix>`, as many as `shard_bytes` of text per shard needs,
rows split evenly in order (the Hub's and `datasets`' layout for one `train` split).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.engine.store.stage_dir import Location, child
from corpus_pipeline.export.card import CardFigures
from corpus_pipeline.export.documents import StageDocuments
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.errors import OutputRefusedError
from corpus_pipeline.storage.locations import settled_output
from corpus_pipeline.storage.locks import LEASE_NAME, output_lock

SUFFIXES = {"parquet": ".parquet", "jsonl": ".jsonl.zst"}
DATA_DIR = "data"
CARD = "README.md"


INTENT = ".export-intent.json"  # on a store: the keys an export is about to write


class ExportOutputExists(OutputRefusedError):
    """The output already holds something: export writes only into nothing."""


def refuse_existing(output: Location, storage: Storage, ours: frozenset[str] = frozenset()) -> None:
    """Refuse an output that holds anything but the keys `ours` (a killed export's, by its intent)."""
    kind = storage.kind(str(output))
    if kind in ("file", "other"):
        what = "a file" if kind == "file" else "a device, FIFO or socket"
        raise ExportOutputExists(f"{output}: is {what} (export writes a folder, and never overwrites)")
    found = [entry for entry in storage.entries_under(str(output)) if entry not in ours] if kind == "folder" else []
    if found:
        raise ExportOutputExists(f"{output}: not empty, it holds {found[0]!r} (export never overwrites)")


def _killed_exports_keys(output: str, storage: Storage) -> frozenset[str]:
    """On a store: what a killed export of this output left (its intent and the keys it names)."""
    try:
        intent = json.loads(storage.read_bytes(str(child(output, INTENT))))
    except (FileNotFoundError, ValueError):
        return frozenset()
    if not isinstance(intent, dict) or intent.get("export") != output:
        return frozenset()
    return frozenset([str(child(output, INTENT)), *(str(child(output, key)) for key in intent.get("keys", []))])


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
    output = settled_output(output, "export --output")
    with output_lock(storage, str(output)):
        # Named by the output: a rerun (holding the same lock) removes what a `kill -9` left there.
        scratch = (
            Path(tempfile.gettempdir())
            / f"corpus-pipeline-export-{hashlib.sha256(str(output).encode()).hexdigest()[:16]}"
        )
        shutil.rmtree(scratch, ignore_errors=True)
        try:
            return _write_locked(documents, output, fmt, shard_bytes, card, render_card, storage, scratch)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _write_locked(documents, output, fmt, shard_bytes, card, render_card, storage, scratch: Path) -> Written:
    shards = max(1, math.ceil(documents.text_bytes / shard_bytes)) if documents.rows else 1
    per_shard = max(1, math.ceil(documents.rows / shards)) if documents.rows else 1
    shards = max(1, math.ceil(documents.rows / per_shard)) if documents.rows else 1
    killed = _killed_exports_keys(str(output), storage)
    # The lease (a store's lock object) and the shards' folder are ours while this export runs.
    held = {str(child(output, LEASE_NAME)), f"{child(output, DATA_DIR)}/"}
    refuse_existing(output, storage, killed | held)
    storage.delete(sorted(killed))
    keys = [shard_name(n, shards, fmt) for n in range(shards)] + [CARD]
    storage.put_bytes(str(child(output, INTENT)), json.dumps({"export": str(output), "keys": keys}).encode())
    (scratch / DATA_DIR).mkdir(parents=True)
    written = Written()
    writer, current = None, -1
    for shard, table in _row_slices(documents.batches(storage), per_shard):
        if shard != current:
            if writer is not None:
                writer.close()
                _place(written.files[-1], scratch, output, storage)
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
    _place(written.files[-1], scratch, output, storage)
    (scratch / CARD).write_text(render_card(card, written), encoding="utf-8")
    _place(CARD, scratch, output, storage)
    storage.delete([str(child(output, INTENT))])  # complete: nothing of it is a killed export's
    return written


def _place(name: str, scratch: Path, output: Location, storage: Storage) -> None:
    """A complete file goes to the output (a hard link or an upload), and its local copy away."""
    storage.put_linked(str(scratch / name), str(child(output, name)))
    os.remove(scratch / name)


def _empty_schema(documents: StageDocuments) -> pa.Schema:
    from corpus_pipeline.document import DOCUMENT_SCHEMA

    return pa.schema([DOCUMENT_SCHEMA.field(name) for name in documents.columns if name in DOCUMENT_SCHEMA.names])
