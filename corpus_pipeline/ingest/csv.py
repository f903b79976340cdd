"""CSV and TSV files with a header row (common in dataset repositories): read as a stream by
pyarrow's CSV reader, every column as a string, values with newlines in quotes allowed, and checked
column-wise like a Parquet batch (`batches.documents`). A row whose number of fields differs from
the header's is rejected (`bad_csv_row`) and the reading goes on."""

from __future__ import annotations

import csv
from collections.abc import Iterator

import pyarrow as pa
import pyarrow.csv as pcsv

from corpus_pipeline.ingest.batches import documents
from corpus_pipeline.ingest.records import Records
from corpus_pipeline.ingest.streams import open_stream
from corpus_pipeline.stages.base import Drop, VerdictTable
from corpus_pipeline.storage import Storage

_DELIMITERS = ("\t", ",", ";")


def delimiter_of(path: str, header: bytes, configured: str | None) -> str:
    """The configured one; a tab for a .tsv name; else the one the header line holds most of."""
    if configured is not None:
        return configured
    if ".tsv" in path.lower():
        return "\t"
    line = header.split(b"\n", 1)[0]
    return max(_DELIMITERS, key=lambda d: (line.count(d.encode()), d == ","))


def _header(path: str, head: bytes, configured: str | None) -> tuple[str, list[str]]:
    """(the delimiter, the header's names; [] for an empty file)."""
    delimiter = delimiter_of(path, head, configured)
    line = head.removeprefix(b"\xef\xbb\xbf").split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r")
    return delimiter, (next(csv.reader([line], delimiter=delimiter)) if line.strip() else [])


def header_names(path: str, storage: Storage, configured: str | None) -> list[str]:
    with open_stream(path, storage) as stream:
        return _header(path, stream.peek(1 << 16), configured)[1]


def read_csv(path: str, records: Records, rows: int, storage: Storage) -> Iterator[VerdictTable]:
    bad: list[tuple[int, str, str]] = []

    def invalid_row(row) -> str:
        detail = f"{row.actual_columns} fields where the header has {row.expected_columns}"
        bad.append((row.number or 0, detail, row.text or ""))
        return "skip"

    with open_stream(path, storage) as stream:
        delimiter, names = _header(path, stream.peek(1 << 16), records.config.csv_delimiter)
        if not names:
            return  # an empty file holds no record
        parse = pcsv.ParseOptions(delimiter=delimiter, newlines_in_values=True, invalid_row_handler=invalid_row)
        # Every column a string: an id of digits stays "007", a date stays as written.
        convert = pcsv.ConvertOptions(column_types={name: pa.string() for name in names}, strings_can_be_null=False)
        read = pcsv.ReadOptions(block_size=8 << 20)
        try:
            reader = pcsv.open_csv(stream, read_options=read, parse_options=parse, convert_options=convert)
            first = 1
            for block in reader:  # of block_size bytes: cut to `rows` rows
                for offset in range(0, block.num_rows, rows):
                    yield from _checked(block.slice(offset, rows), records, first + offset, bad)
                first += block.num_rows
        except pa.ArrowInvalid as error:  # an unterminated quote, a header with duplicate names
            raise CsvReadError(str(error)) from error


class CsvReadError(OSError):
    """The CSV file cannot be read on (a read fault: the rows before it are kept)."""


def _checked(batch: pa.RecordBatch, records: Records, first: int, bad: list) -> Iterator[VerdictTable]:
    yield documents(batch, records, first, "row")
    last = first + batch.num_rows - 1
    records.position = f"row {last}"
    for number, detail, text in bad:
        records.reject(f"line {number}" if number else f"after row {last}", Drop("bad_csv_row", detail), text)
    bad.clear()
    if len(records):
        yield records.take()
