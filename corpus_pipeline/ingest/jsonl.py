"""JSON lines (`.jsonl`, `.jsonl.gz`, `.jsonl.zst`): one object a line.

Read in chunks of whole lines (8 MiB). A chunk is parsed by pyarrow's JSON reader (C++, threaded;
59 MB of real documents: 0.22-0.25 CPU s, where orjson line by line with the checks takes 0.67-0.82)
and checked column-wise like a Parquet batch. A chunk pyarrow refuses (a line that is not JSON, not
an object, a field whose type changes from line to line, a lone surrogate), or that holds blank
lines or bytes that are not UTF-8, is read again line by line with orjson, so each bad line becomes
its own rejected row (`not_json`, `invalid_utf8`) and the others are kept as the fast path would keep
them. Blank lines hold no record and are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.json as pj

from corpus_pipeline.ingest.batches import check_rows, documents, pieces
from corpus_pipeline.ingest.config import IngestConfig
from corpus_pipeline.ingest.metadata import has_timestamp
from corpus_pipeline.ingest.records import Records
from corpus_pipeline.ingest.streams import open_stream
from corpus_pipeline.stages.base import Drop, VerdictTable
from corpus_pipeline.storage import Storage

# Lines read and parsed at once: big enough for pyarrow's threads (its default block is 1 MiB),
# small enough that a chunk of 10 KB documents is ~800 of them in memory.
CHUNK_BYTES = 8 << 20
# pyarrow parses a chunk in blocks, one a thread: two blocks keep both cores busy, and each block is
# one batch to check (joining them into one costs as much as checking them: 16 ms per 20 MB).
_READ_OPTIONS = pj.ReadOptions(block_size=CHUNK_BYTES // 2)
# Room in the chunk buffer for the line the last chunk cut (a document of up to 1 MiB) before a
# bigger buffer is needed.
_TAIL_ROOM = 1 << 20
_NEWLINE = ord("\n")


def field(record: dict, name: str | None) -> object:
    """`record[name]`; a dotted name reaches into nested objects (`metadata.url`)."""
    if name is None:
        return None
    if name in record:
        return record[name]
    value: object = record
    for part in name.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def as_string(value: object) -> str | None:
    """A column value for a string column: numbers as written, objects and lists as JSON."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    return orjson.dumps(value).decode("utf-8")


def read_jsonl(path: str, records: Records, rows: int, storage: Storage) -> Iterator[VerdictTable]:
    options = parse_options(records.config)
    first = 1
    with open_stream(path, storage) as stream:
        if stream.peek(1 << 16)[: 1 << 16].removeprefix(b"\xef\xbb\xbf").lstrip()[:1] == b"[":
            yield from read_json_array(stream, records, rows)
            return
        for chunk in _chunks(stream):
            lines = _line_count(chunk)
            table = _parsed(chunk, lines, options)
            if table is None:
                for _ in _read_lines(bytes(chunk), first, records):
                    if len(records) >= rows:
                        yield records.take()
                if len(records):
                    yield records.take()
            else:
                yield from _checked(table, chunk, first, records, rows)
            first += lines
            records.position = f"line {first - 1}"


def _checked(table: pa.Table, chunk: memoryview, first: int, records: Records, rows: int) -> Iterator[VerdictTable]:
    """The documents of a chunk's table, whose first row is line `first`. Checked whole, its blocks
    the chunks of each column: the checks cost ~60 Arrow calls whatever the rows (40 MB were 12
    checks, a block each, some blocks of 1-4 rows; now 5); in batches of `rows` when ingest.limit
    may stop the file early (what is checked is counted in). Handed out in the tables that checking
    block by block gave, so the stage writes the same bytes."""
    # The explicit schema's fields that no line has are columns of nulls: not metadata.
    others = [c for c in records.metadata.others(table.column_names) if table[c].null_count < len(table)]
    # From pyarrow's columns, unless one holds a timestamp: its inference makes one of an ISO date
    # string, whose text only the line itself still has. (A number field with 1 in one line and
    # 1.5 in another is a double: the 1 is written 1.0.)
    exact = any(has_timestamp(table.schema.field(name).type) for name in others)
    parsed = bytes(chunk).split(b"\n") if exact else None
    number = first
    for unit in [table] if records.config.limit is None else table.to_batches(max_chunksize=rows):
        if parsed is not None:
            lines = parsed[number - first : number - first + unit.num_rows]
            metadata = [records.metadata.of(orjson.loads(line)) for line in lines]
        elif others:
            metadata = records.metadata.column(_contiguous(unit.select(others)), from_json=True)
        else:
            metadata = pa.nulls(unit.num_rows, pa.string())
        checked = documents(unit, records, number, "line", metadata, valid_utf8=True)
        if isinstance(unit, pa.Table):
            blocks = [batch.num_rows for batch in unit.to_batches(max_chunksize=check_rows(records, rows))]
            yield from pieces(checked, rows, blocks)
        else:
            yield from pieces(checked, rows)
        number += unit.num_rows


def _contiguous(columns: pa.Table | pa.RecordBatch) -> pa.RecordBatch:
    """A chunk's metadata columns as one batch, as the metadata's kernels take them: a copy of
    those columns only (a float and an object of two integers a row: ~0.2 ms per 8 MiB chunk)."""
    if isinstance(columns, pa.RecordBatch):
        return columns
    return pa.RecordBatch.from_arrays([column.combine_chunks() for column in columns.columns], schema=columns.schema)


def read_json_array(stream, records: Records, rows: int) -> Iterator[VerdictTable]:
    """A file holding one JSON array of objects (`[{...}, {...}]`): parsed whole, as no streaming
    parser is at hand; each element is a record (`element N`, from 1)."""
    where = "element 1"
    try:
        values = orjson.loads(stream.read())
    except orjson.JSONDecodeError as error:
        records.reject("file", Drop("not_json", f"a JSON array that does not parse: {error}"))
        yield records.take()
        return
    if not isinstance(values, list):
        values = [values]
    for number, value in enumerate(values, 1):
        where = f"element {number}"
        if isinstance(value, dict):
            _add_record(records, where, value)
        else:
            records.reject(where, Drop("not_json", f"a JSON {type(value).__name__}, not an object"), as_string(value))
        if len(records) >= rows:
            yield records.take()
    yield records.take()


def _first_of(record: dict, names: tuple[str, ...]):
    """The value of the first of `names` that the record has (the date fields, the url fields)."""
    return next((value for name in names if (value := field(record, name)) is not None), None)


def _add_record(records: Records, where: str, record: dict) -> None:
    config = records.config
    date, url = (_first_of(record, names) for names in (config.date_fields(), config.url_fields()))
    records.add(
        where,
        field(record, config.text_field),
        field(record, config.id_field),
        url=as_string(url),
        date=as_string(date),
        dump=as_string(field(record, config.dump_field)),
        language=as_string(field(record, config.language_field)),
        metadata=records.metadata.of(record),
        source=field(record, config.source_field),
    )


def _chunks(stream) -> Iterator[memoryview]:
    """Whole lines, ~CHUNK_BYTES at a time, as views of one buffer that every chunk reuses: a view
    holds until the next chunk is asked for (pyarrow's parse copies what it keeps, the line by line
    path reads a copy). A fresh buffer a chunk cost 0.008 CPU s per 40 MB in zeroing and page
    faults, as much as the read itself. Each chunk is what is left of the last one's cut line plus
    up to CHUNK_BYTES read after it, cut after its last newline. `readinto1` gives what the
    decompressor has, so a stream that fails (a truncated gzip) first gives all it read before the
    fault, and its records are kept as extract keeps the records before one."""
    buffer = bytearray(CHUNK_BYTES + _TAIL_ROOM)
    view = memoryview(buffer)
    held = 0  # bytes at the buffer's start: the tail of the last chunk (a line cut in two)
    while True:
        end, size = held + CHUNK_BYTES, held
        if end > len(buffer):  # a tail longer than the room left for it: one line of megabytes
            buffer = bytearray(end)
            buffer[:held] = view[:held]
            view = memoryview(buffer)
        try:
            while size < end and (read := stream.readinto1(view[size:end])):
                size += read
        except Exception:
            if size:
                yield view[:size]
            raise
        if size < end:  # the end of the stream
            if size:
                yield view[:size]
            return
        cut = buffer.rfind(b"\n", 0, size) + 1
        if not cut:  # one line longer than a chunk: read on
            held = size
            continue
        yield view[:cut]
        held = size - cut
        buffer[:held] = bytes(view[cut:size])  # a copy: the two may overlap


def _line_count(chunk: memoryview) -> int:
    """Lines in a chunk (the last one may lack its newline), counted by numpy 256 KiB at a time
    (the comparison's booleans stay in cache): 40 MB in 0.003 CPU s, where `bytes.count` takes
    0.024, 30 % of pyarrow's whole parse."""
    data = np.frombuffer(chunk, np.uint8)
    step = 1 << 18
    newlines = sum(int(np.count_nonzero(data[start : start + step] == _NEWLINE)) for start in range(0, len(data), step))
    return newlines + (chunk[-1] != _NEWLINE)


def _valid_utf8(chunk: memoryview) -> bool:
    """Every byte of the chunk valid UTF-8, checked by Arrow on the bytes as read (one value of a
    string array over the chunk, no copy): 40 MB in 0.013 CPU s, where checking the parsed table's
    strings took 0.015 and came after the parse. pyarrow's JSON reader does not check (`caf\\xe9`
    comes back as a string); an escape that no UTF-8 text can hold (a lone surrogate) it refuses."""
    data = pa.py_buffer(chunk)
    offsets = pa.py_buffer(np.array([0, len(chunk)], np.int64))
    try:
        pa.Array.from_buffers(pa.large_string(), 1, [None, offsets, data]).validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def parse_options(config: IngestConfig) -> pj.ParseOptions:
    # Top-level string fields are read as strings: left to inference, a date would become a
    # timestamp, and a field that holds a number in one line and a string in another fails the chunk.
    strings = {config.text_field, config.dump_field, config.language_field, config.source_field}
    strings |= set(config.date_fields()) | set(config.url_fields())
    schema = pa.schema([(name, pa.string()) for name in sorted(n for n in strings if n and "." not in n)])
    return pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="infer")


def _parsed(chunk: memoryview, lines: int, options: pj.ParseOptions) -> pa.Table | None:
    """The chunk as a table with one row per line, or None when it must be read line by line."""
    if not _valid_utf8(chunk):  # line by line, each line that is not UTF-8 is rejected
        return None
    try:
        table = pj.read_json(pa.BufferReader(chunk), read_options=_READ_OPTIONS, parse_options=options)
    except pa.ArrowInvalid:
        return None
    if table.num_rows != lines:  # blank lines, which pyarrow skips: the line numbers would shift
        return None
    return table


def _read_lines(chunk: bytes, first: int, records: Records) -> Iterator[None]:
    for number, line in enumerate(chunk.splitlines(keepends=True), first):
        if line.isspace():
            continue
        where = f"line {number}"
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            records.reject(where, _not_parsed(line, error), line.decode("utf-8", "replace").strip())
            yield
            continue
        if not isinstance(record, dict):
            kind = type(record).__name__
            records.reject(where, Drop("not_json", f"a JSON {kind}, not an object"), line.decode().strip())
        else:
            _add_record(records, where, record)
        yield


def _not_parsed(line: bytes, error: orjson.JSONDecodeError) -> Drop:
    try:
        line.decode("utf-8")
    except UnicodeDecodeError as bad:
        return Drop("invalid_utf8", f"byte {bad.start} of the line: {bad.reason}")
    if "surrogate" in str(error):  # valid JSON escapes that no UTF-8 text can hold
        return Drop("invalid_utf8", str(error))
    return Drop("not_json", str(error))
