"""The `ingest:` section: which datasets become documents, and how their fields are read."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from corpus_pipeline.config_base import NAME_PATTERN, Strict


class IngestConfig(Strict):
    """`ingest:` JSON lines or arrays, Parquet, CSV/TSV, plain text or MediaWiki XML dumps -> documents
    (the list: corpus_pipeline/ingest/formats.py)."""

    # auto: by content (magic bytes, the first characters), then by name; else every input is read
    # so. Compression (gzip, zstd, bzip2, xz) is always told by the content.
    format: Literal["auto", "jsonl", "parquet", "csv", "text", "wikipedia"] = "auto"
    source: str = Field("dataset", pattern=NAME_PATTERN)  # the `source` column; part of hashed ids
    # A per-record source (Dolma's `source`): its value fills `source` where it is a plain name
    # (NAME_PATTERN), else `source` above does (counted as extra.source_fallbacks).
    source_field: str | None = None
    domain: str = Field("general", pattern=NAME_PATTERN)  # when no `domains.rules` entry matches the URL
    # Where each column comes from in a JSON object or a Parquet row; a dotted name reaches into a
    # nested object or struct (Dolma: `metadata.url`). The defaults are FineWeb's column names;
    # Dolma: source_field=source (its metadata.url is the url by default); RedPajama-V2: text_field=raw_content,
    # id_field=doc_id. None: the column stays empty. A text field in none of the first records, or
    # an id field so named in the config and in none of them, is refused before anything runs.
    text_field: str = "text"
    id_field: str | None = "id"
    # Put before every given id, unless the id already starts with it (Wikipedia's `viwiki:1001`
    # with the prefix `viwiki:`). Dedup keeps one row per id and mix's documents.parquet traces ids,
    # so two datasets that both number their records 0..N must not share ids: in pipeline.sources
    # each ingested source gets "<name>:" unless it overrides this. Hashed ids hash the source name.
    id_prefix: str = ""
    # A list: the first of them that a record has (FineWeb `url`; Dolma `metadata.url`).
    url_field: str | list[str] | None = Field(default_factory=lambda: ["url", "metadata.url"])
    # A list: the first of them that a record has (FineWeb `date`, `timestamp`; Dolma `created`,
    # `added`).
    date_field: str | list[str] | None = Field(default_factory=lambda: ["date", "timestamp", "created", "added"])
    dump_field: str | None = "dump"
    language_field: str | None = "language"
    # Every other field of a record, as one JSON object in the `metadata` column (nulls left out).
    keep_metadata: bool = True
    # CSV/TSV: the field separator; None: a tab for .tsv names, else the one the header line uses
    # most of tab, comma, semicolon.
    csv_delimiter: str | None = Field(None, min_length=1, max_length=1)
    # Plain text: a whole file is one document, or each block of lines between blank lines is, or
    # each non-blank line (fastText's training files, sentence corpora).
    text_unit: Literal["file", "block", "line"] = "file"
    # Longer texts are rejected (`too_large`) without being held whole: extract's payload limit.
    max_text_bytes: int = Field(10_000_000, ge=1)
    # A first look at a big dataset: at most `limit` records in all (the files in order, the rest
    # unread), and of those a `sample` fraction, chosen by a hash of `sample_seed`, the file and
    # the record's number (the same records every run).
    limit: int | None = Field(None, ge=1)
    sample: float | None = Field(None, gt=0.0, le=1.0)
    sample_seed: int = 0

    def date_fields(self) -> tuple[str, ...]:
        return _names(self.date_field)

    def url_fields(self) -> tuple[str, ...]:
        return _names(self.url_field)


def _names(field: str | list[str] | None) -> tuple[str, ...]:
    """A field setting as the names to try, in order."""
    if field is None:
        return ()
    return (field,) if isinstance(field, str) else tuple(field)
