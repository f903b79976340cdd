"""ingest: existing datasets -> documents. One task per input file, in one of the formats of
`formats.FORMATS` (JSON lines or arrays, Parquet, CSV/TSV, plain text, MediaWiki XML dumps), told
by the file's content, then its name (`ingest.format` forces one); compression by magic bytes.

Every record becomes a row: a document with `source` and `domain` set, or a rejected row whose
reason says why (schemas/document.md), so `records in == kept + dropped` holds per file. A file that
cannot be read to the end keeps every record before the fault and adds one `read_error` row, as
extract does for a truncated WARC. A file in a folder that is no dataset (a README.md, an image) is
skipped, said in the log and in `_stats.json` (`extra.skipped_files`: its name and why).
"""

from __future__ import annotations

import logging
import lzma
import os
import zlib
from collections.abc import Iterator
from xml.etree.ElementTree import ParseError

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.config import DomainsConfig, StorageConfig
from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.store.stage_dir import input_parts
from corpus_pipeline.ingest.config import IngestConfig
from corpus_pipeline.ingest.csv import read_csv
from corpus_pipeline.ingest.fields import check_fields
from corpus_pipeline.ingest.formats import FORMATS, detect, format_by_name, formats_text, suffixes_of
from corpus_pipeline.ingest.jsonl import read_jsonl
from corpus_pipeline.ingest.names import relative_names
from corpus_pipeline.ingest.parquet import read_parquet
from corpus_pipeline.ingest.records import Records
from corpus_pipeline.ingest.selection import selected
from corpus_pipeline.ingest.text import read_text
from corpus_pipeline.ingest.wikipedia import read_wikipedia
from corpus_pipeline.inputs import expand_inputs
from corpus_pipeline.repeated_ids import count_ids
from corpus_pipeline.stages.base import Drop, SourceStage, Verdict, VerdictTable
from corpus_pipeline.stages.domains import DomainRules
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.listing import has_suffix

LOG = logging.getLogger("corpus_pipeline.ingest")
# Readers that yield tables of up to `rows` documents, and readers that add one record at a time.
_TABLE_READERS = {"jsonl": read_jsonl, "parquet": read_parquet, "csv": read_csv}
_ROW_READERS = {"text": read_text, "wikipedia": read_wikipedia}
_ROWS_PER_READ = 1_000


def _read_errors() -> tuple[type[BaseException], ...]:
    """What a file that cannot be read to the end raises: OS errors (truncated gzip and bz2 streams,
    Parquet's and CSV's own errors as OSErrors), zlib, xz and zstd errors, XML that does not parse."""
    import mwxml.errors
    import zstandard

    return (OSError, EOFError, zlib.error, lzma.LZMAError, zstandard.ZstdError, ParseError, mwxml.errors.MalformedXML)


class IngestStage(SourceStage):
    name = "ingest"

    def __init__(
        self,
        config: IngestConfig | None = None,
        domains: DomainsConfig | None = None,
        storage: StorageConfig | None = None,
    ):
        self.config = config or IngestConfig()
        # The documents' `domain`: the run's `domains:` rules, else `ingest.domain`.
        self.rules = DomainRules(domains)
        self.storage = Storage(storage)
        # Decided on the driver by input_files, carried to the tasks with the stage: each file's
        # name relative to the input given (rejected rows' ids), and with ingest.limit the records
        # each file may give. Without them (a stage built elsewhere) a file is named by its base
        # name and read whole.
        self.names: dict[str, str] = {}
        self.budgets: dict[str, int] = {}

    def output_schema(self) -> pa.Schema:
        return DOCUMENT_SCHEMA

    def config_fingerprint(self) -> str:
        # Not `storage`: how the files are reached (endpoint, retries) does not change what they hold.
        return repr((self.config, self.rules.config))

    def input_files(self, arguments: list[str]) -> list[str]:
        """Every file `arguments` name; the files of a folder that are no dataset are tasks that
        only count themselves skipped. Refused before any task runs: no dataset file at all, a
        file named explicitly that is none, a text or id field the data does not have."""
        try:
            files = expand_inputs(arguments, ("",), "dataset", self.storage)
        except FileNotFoundError as error:
            raise FileNotFoundError(f"{error}; ingest reads {formats_text()}") from None
        named = {os.path.abspath(a) if "://" not in a else a for a in arguments}
        self.names = relative_names(arguments, files)
        readable, checked = [], set()
        for path in files:
            fmt, why = self._format_on_driver(path)
            if fmt is None:
                if path in named:
                    raise ValueError(f"{path}: cannot tell its format from its name or content ({why}); "
                                     f"ingest reads {formats_text()}; or give --format")  # fmt: skip
                LOG.warning("ingest: skipped %s: %s", self.names[path], why)
                continue
            readable.append(path)
            if fmt not in checked:  # the first file of each format, read as its task will read it
                read_as = detect(path, self.config.format, self.storage).format or fmt
                check_fields(path, self.names[path], read_as, self.config, self.storage)
                checked.add(fmt)
        if not readable:
            raise FileNotFoundError(
                f"--input {' '.join(arguments)}: no dataset files found; ingest reads {formats_text()}"
            )
        if self.config.limit is not None:
            self.budgets = self._budgets(readable)
        return files

    def _format_on_driver(self, path: str) -> tuple[str | None, str]:
        """A file's format as the driver sees it: by its name when that is a dataset name (the task
        reads its content), else by its content; (None, why) for a file that is no dataset."""
        configured = self.config.format
        if configured != "auto":
            fmt = next(f for f in FORMATS if f.name == configured)
            if has_suffix(path.lower(), suffixes_of(fmt)):
                return configured, ""
        elif format_by_name(path) is not None:
            return format_by_name(path), ""
        found = detect(path, "auto", self.storage)
        if configured != "auto" and found.format is not None:
            return configured, ""
        return found.format, found.skipped or f"not a {configured} name"

    def _budgets(self, files: list[str]) -> dict[str, int]:
        """ingest.limit over the files in order: each one's records up to what is left, counted by
        reading them here (a first look reads few); the files after the limit get 0."""
        left, budgets = self.config.limit, {}
        for path in files:
            count = 0
            if left:
                stats = StageStats("ingest")
                for _ in self._parts(path, stats, _ROWS_PER_READ, left, sample=False):
                    pass
                count = stats.docs_in
            budgets[path] = count
            left -= count
        return budgets

    def read_tables(self, path: str, stats: StageStats, rows: int) -> Iterator[VerdictTable]:
        budget = self.budgets.get(path, self.config.limit)
        if budget == 0:
            stats.count("limit", "files not read")
            yield Records(self.config, self.rules, path, stats, self.names.get(path)).take()
            return
        yield from self._parts(path, stats, rows, budget)

    def _parts(
        self, path: str, stats: StageStats, rows: int, budget: int | None, sample: bool = True
    ) -> Iterator[VerdictTable]:
        found = detect(path, self.config.format, self.storage)
        records = Records(self.config, self.rules, path, stats, self.names.get(path))
        if found.format is None:
            stats.count("skipped_files", f"{records.name}: {found.skipped}")
            yield records.take()
            return
        if found.note:
            LOG.warning("ingest: %s: %s", records.name, found.note)
            stats.count("read_by_content", f"{records.name}: {found.note}")
        stats.count("formats", found.format)
        config = self.config
        fraction = config.sample if sample else None
        parts = self._read(found.format, path, records, rows)
        yield from selected(parts, stats, records.name, budget, fraction, config.sample_seed)

    def _read(self, fmt: str, path: str, records: Records, rows: int) -> Iterator[VerdictTable]:
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

    @staticmethod
    def describe(output, storage) -> str:
        """A warning when two input files held the same id (each file's own repeats are rejected)."""
        parts = input_parts(output, storage)
        tables = (pq.read_table(storage.parquet_source(str(part)), columns=["id"]) for part in parts)
        return count_ids(tables).warning("ingest", str(output)) or ""

    @staticmethod
    def outcome(stats: StageStats) -> tuple[int, str | None]:
        """(exit code, a message) of a finished ingest: 1 when it kept none of N > 0 records (with
        the top reasons), a warning when the input held no record."""
        if stats.docs_in == 0:
            return 0, "ingest: warning: the input holds no records"
        if stats.kept == 0:
            top = ", ".join(f"{reason} ({count:,})" for reason, count in stats.dropped.most_common(3))
            return 1, f"ingest: kept none of {stats.docs_in:,} records: {top}"
        return 0, None
