"""The rows one input file of a dataset becomes, with the checks every format shares: a text that
is there, a string, valid UTF-8, not empty, not too large; an id that is a string or an integer
and not seen before in the file (none given: a hash of the source name and the text).

Duplicate ids are caught within one input file (one task): the file's ids are held in a set,
~100 bytes an id (a FineWeb file of 1M documents: ~100 MB). Across files, the dedup stage keeps
one row per id (reason `exact_duplicate`).
"""

from __future__ import annotations

import pyarrow as pa

from corpus_pipeline.document import DOCUMENT_SCHEMA, source_text_id
from corpus_pipeline.ingest.config import IngestConfig
from corpus_pipeline.ingest.metadata import MetadataFields, plain_source
from corpus_pipeline.stages.base import Drop, VerdictTable
from corpus_pipeline.stages.domains import DomainRules
from corpus_pipeline.stats import StageStats

READ_ERROR = "read_error"
# Columns a reader fills; every other column of the schema is null.
_FILLED = ("id", "text", "url", "date", "dump", "source", "domain", "file_path", "language", "metadata")


class SeenIds:
    """The ids of one input file so far."""

    def __init__(self):
        self._ids: set[str] = set()

    def first_time(self, doc_id: str) -> bool:
        if doc_id in self._ids:
            return False
        self._ids.add(doc_id)
        return True

    def all_new(self, ids: list[str]) -> bool:
        """True, and all added, when none of `ids` was seen and none repeats; else nothing added.
        Two passes over `ids` (look up, add), not three (a set of them first): 8,192 new ids against
        30,000 seen in 0.37 ms instead of 0.70."""
        if not self._ids.isdisjoint(ids):
            return False
        before = len(self._ids)
        self._ids.update(ids)
        if len(self._ids) - before < len(ids):  # one repeats within `ids`: none of them was there before
            self._ids.difference_update(ids)
            return False
        return True


def duplicate_detail(where: str, hashed: bool) -> str:
    same = "the same source and text as" if hashed else "the id of"
    return f"{where}: {same} an earlier record of this file"


def record_id(value: object) -> str | None:
    """A given id as a string; None when there is none; ValueError for one of another type."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"an id must be a string or an integer, not {type(value).__name__}")


def prefixed(prefix: str, doc_id: str) -> str:
    """`prefix` before a given id, once: an id that already starts with it (Wikipedia's `viwiki:12`
    in a source named viwiki) keeps it single."""
    return doc_id if doc_id.startswith(prefix) else prefix + doc_id


def _shown(text: object, verdict: Drop) -> str:
    """The text a rejected row keeps: what there was of it, as valid UTF-8 (a too large one is
    left out, as extract leaves out a too large payload)."""
    if not isinstance(text, str) or verdict.reason == "too_large":
        return ""
    return text.encode("utf-8", "replace").decode("utf-8") if verdict.reason == "invalid_utf8" else text


class Records:
    """The rows of one input file as columns, in input order, with their verdicts; `take()` hands
    out what has accumulated as one table."""

    def __init__(self, config: IngestConfig, rules: DomainRules, path: str, stats: StageStats, name: str | None = None):
        """`name`: the file as the rejected rows' ids name it, relative to the input given (never
        a machine's absolute path); `path` fills `file_path`."""
        self.config, self.rules, self.path, self.stats = config, rules, path, stats
        self.name = name or path.rstrip("/").rsplit("/", 1)[-1]
        self.metadata = MetadataFields(config)
        self.seen = SeenIds()
        self.position = "the start"  # the last record read, for a read fault's detail
        self._clear()

    def _clear(self) -> None:
        self.columns: dict[str, list] = {name: [] for name in _FILLED}
        self.verdicts: list[Drop | None] = []

    def __len__(self) -> int:
        return len(self.verdicts)

    def add(
        self,
        where: str,
        text: object,
        doc_id: object = None,
        url: str | None = None,
        date: str | None = None,
        dump: str | None = None,
        language: str | None = None,
        nbytes: int | None = None,
        metadata: str | None = None,
        source: object = None,
    ) -> None:
        """One record (`where`: its place in the file, `line 12`). Its bytes in: `nbytes`, else its
        text's UTF-8 bytes (the bytes in of every format but wikitext, counted before markup is gone)."""
        verdict, encoded, size = self._check_text(text)
        self.stats.count_in(size if nbytes is None else nbytes)
        self.position = where
        try:
            given = record_id(doc_id)
        except ValueError as error:
            given, verdict = None, verdict or Drop("invalid_id", str(error))
        values = (url, date, dump, language, metadata, self._source(source))
        if verdict is not None:
            self._row(f"{self.name}:{where}", _shown(text, verdict), *values, verdict)
            return
        final_id = (
            prefixed(self.config.id_prefix, given) if given is not None else source_text_id(self.config.source, encoded)
        )
        if not self.seen.first_time(final_id):
            verdict = Drop("duplicate_id", duplicate_detail(where, hashed=given is None))
        self._row(final_id, text, *values, verdict)

    def _source(self, value: object) -> str:
        """The record's own source (ingest.source_field) when it is a plain name, else the config's."""
        if self.config.source_field is None:
            return self.config.source
        plain = plain_source(value)
        if plain is None:
            self.stats.count("source_fallbacks", "null" if value is None else "not a plain name")
        return plain or self.config.source

    def _check_text(self, text: object) -> tuple[Drop | None, bytes, int]:
        """(verdict, the text's UTF-8 bytes, their number)."""
        if text is None:
            return Drop("missing_text", f"no {self.config.text_field!r} field"), b"", 0
        if not isinstance(text, str):
            return Drop("text_not_string", f"{self.config.text_field!r} is of type {type(text).__name__}"), b"", 0
        try:
            encoded = text.encode("utf-8")
        except UnicodeEncodeError as error:  # a lone surrogate, from a JSON escape or a decoder
            return Drop("invalid_utf8", str(error)), b"", len(text.encode("utf-8", "surrogatepass"))
        if len(encoded) > self.config.max_text_bytes:
            detail = f"{len(encoded)} bytes of text, over {self.config.max_text_bytes}"
            return Drop("too_large", detail), b"", len(encoded)
        if not text or text.isspace():
            return Drop("empty_text"), b"", len(encoded)
        return None, encoded, len(encoded)

    def reject(self, where: str, verdict: Drop, text: str = "", url: str | None = None, nbytes: int = 0) -> None:
        """A record that never got as far as a text (a line that is not JSON, a redirect page);
        `nbytes`: what it holds (its wikitext, a text too large to read)."""
        self.stats.count_in(nbytes)
        self.position = where
        self._row(f"{self.name}:{where}", text, url, None, None, None, None, self.config.source, verdict)

    def fault(self, error: BaseException) -> None:
        """The file cannot be read past `position`: one `read_error` row, as extract writes one."""
        self.stats.count_in(0)
        self.stats.count("read_faults", type(error).__name__)
        detail = f"{type(error).__name__} after {self.position}: {error}"
        where = f"fault:{self.name}:{self.position}"
        self._row(where, "", None, None, None, None, None, self.config.source, Drop(READ_ERROR, detail))

    def _row(self, doc_id, text, url, date, dump, language, metadata, source, verdict: Drop | None) -> None:
        values = (doc_id, text, url, date, dump, source, None, self.path, language, metadata)
        for name, value in zip(_FILLED, values, strict=True):
            self.columns[name].append(value)
        self.verdicts.append(verdict)

    def take(self) -> VerdictTable:
        texts = self.columns["text"] if self.rules.needs_text else None
        self.columns["domain"] = self.rules.domains_of(self.columns["url"], self.config.domain, texts)
        arrays = [
            pa.array(self.columns[f.name], f.type) if f.name in self.columns else pa.nulls(len(self), f.type)
            for f in DOCUMENT_SCHEMA
        ]
        table = VerdictTable.of(pa.Table.from_arrays(arrays, schema=DOCUMENT_SCHEMA), self.verdicts)
        self._clear()
        return table
