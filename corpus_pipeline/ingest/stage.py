"""ingest: existing datasets -> documents. One task per input file, in one of four formats:
JSON lines, Parquet, plain text, MediaWiki XML dumps (`ingest.format`, or told by the file name).

Every record becomes a row: a document with `source` and `domain` set, or a rejected row whose
reason says why (schemas/document.md), so `records in == kept + dropped` holds per file. A file that
cannot be read to the end keeps every record before the fault and adds one `read_error` row, as
extract does for a truncated WARC.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from xml.etree.ElementTree import ParseError

import pyarrow as pa

from corpus_pipeline.config import DomainsConfig, IngestConfig, StorageConfig
from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.ingest.jsonl import read_jsonl
from corpus_pipeline.ingest.parquet import read_parquet
from corpus_pipeline.ingest.records import Records
from corpus_pipeline.ingest.text import read_text
from corpus_pipeline.ingest.wikipedia import read_wikipedia
from corpus_pipeline.inputs import expand_inputs
from corpus_pipeline.stages.base import Drop, SourceStage, Verdict, VerdictTable
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage.listing import has_suffix

FORMAT_SUFFIXES: dict[str, tuple[str, ...]] = {
    "jsonl": (".jsonl", ".jsonl.gz", ".jsonl.zst", ".jsonl.bz2", ".ndjson", ".ndjson.gz"),
    "parquet": (".parquet",),
    "text": (".txt", ".txt.gz", ".txt.zst", ".txt.bz2"),
    "wikipedia": (".xml", ".xml.bz2", ".xml.gz", ".xml-p*.bz2"),
}
# Readers that yield tables of up to `rows` documents, and readers that add one record at a time.
_TABLE_READERS = {"jsonl": read_jsonl, "parquet": read_parquet}
_ROW_READERS = {"text": read_text, "wikipedia": read_wikipedia}
_ROWS_PER_READ = 1_000


def _read_errors() -> tuple[type[BaseException], ...]:
    """What a file that cannot be read to the end raises: OS errors (truncated gzip and bz2 streams,
    Parquet's own errors as ParquetReadError), zlib and zstd errors, XML that does not parse."""
    import mwxml.errors
    import zstandard

    return (OSError, EOFError, zlib.error, zstandard.ZstdError, ParseError, mwxml.errors.MalformedXML)


def file_format(path: str, configured: str) -> str:
    if configured != "auto":
        return configured
    for name, suffixes in FORMAT_SUFFIXES.items():
        if has_suffix(path.lower(), suffixes):
            return name
    known = ", ".join(suffix for suffixes in FORMAT_SUFFIXES.values() for suffix in suffixes)
    raise ValueError(f"{path}: cannot tell its format from its name ({known}): give --format")


class IngestStage(SourceStage):
    name = "ingest"

    def __init__(
        self,
        config: IngestConfig | None = None,
        domains: DomainsConfig | None = None,
        storage: StorageConfig | None = None,
    ):
        super().__init__(config or IngestConfig(), domains, storage)

    def output_schema(self) -> pa.Schema:
        return DOCUMENT_SCHEMA

    def input_files(self, arguments: list[str]) -> list[str]:
        """The dataset files `arguments` name; each one's format is decided here, on the driver, so
        a file of unknown format is refused before any task runs."""
        fmt = self.config.format
        suffixes = tuple(s for name, ss in FORMAT_SUFFIXES.items() if fmt in ("auto", name) for s in ss)
        kinds = "JSON lines, Parquet, text or MediaWiki XML" if fmt == "auto" else fmt
        files = expand_inputs(arguments, suffixes, kinds, self.storage)
        for path in files:
            file_format(path, fmt)
        return files

    def read_tables(self, path: str, stats: StageStats, rows: int) -> Iterator[VerdictTable]:
        fmt = file_format(path, self.config.format)
        stats.count("formats", fmt)
        records = Records(self.config, self.rules, path, stats)
        try:
            if fmt in _TABLE_READERS:
                yield from _TABLE_READERS[fmt](path, records, rows, self.storage)
            else:
                for _ in _ROW_READERS[fmt](path, records, self.storage):
                    if len(records) >= rows:
                        yield records.take()
        except _read_errors() as error:
            records.fault(error)
        yield records.take()

    def read(self, path: str, stats: StageStats) -> Iterator[tuple[dict, Verdict]]:
        for part in self.read_tables(path, stats, _ROWS_PER_READ):
            verdicts = zip(part.reasons.to_pylist(), part.details.to_pylist(), strict=True)
            for row, (reason, detail) in zip(part.table.to_pylist(), verdicts, strict=True):
                yield row, None if reason is None else Drop(reason, detail or "")
