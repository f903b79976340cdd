"""Config of what a document's `source` and `domain` are: the `ingest` stage reading existing
datasets, and the `domains:` rules that both source stages (extract, ingest) apply."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from corpus_pipeline.config.base import Strict

# A source or domain name ends up in directory names and mix groups: keep it to a plain word.
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class IngestConfig(Strict):
    """`ingest:` JSON lines, Parquet, plain text or MediaWiki XML dumps -> documents."""

    # auto: by file name (.jsonl[.gz|.zst], .parquet, .txt, .xml[.bz2]); else every input is read so.
    format: Literal["auto", "jsonl", "parquet", "text", "wikipedia"] = "auto"
    source: str = Field("dataset", pattern=NAME_PATTERN)  # the `source` column; part of hashed ids
    domain: str = Field("general", pattern=NAME_PATTERN)  # when no `domains.rules` entry matches the URL
    # Where each column comes from in a JSON object or a Parquet row; a dotted name reaches into a
    # nested object or struct (Dolma: `metadata.url`). The defaults are FineWeb's column names;
    # Dolma: date_field=created, url_field=metadata.url; RedPajama-V2: text_field=raw_content,
    # id_field=doc_id. None: the column stays empty. A field absent from the data leaves it empty
    # too, except text (rejected as `missing_text`); without an id the document gets a hashed one.
    text_field: str = "text"
    id_field: str | None = "id"
    # Put before every given id. Dedup keeps one row per id and mix's documents.parquet traces ids,
    # so two datasets that both number their records 0..N must not share ids: in pipeline.sources
    # each ingested source gets "<name>:" unless it overrides this. Hashed ids hash the source name.
    id_prefix: str = ""
    url_field: str | None = "url"
    date_field: str | None = "date"
    dump_field: str | None = "dump"
    language_field: str | None = "language"
    # Plain text: a whole file is one document, or each block of lines between blank lines is.
    text_unit: Literal["file", "block"] = "file"
    # Longer texts are rejected (`too_large`) without being held whole: extract's payload limit.
    max_text_bytes: int = Field(10_000_000, ge=1)


class DomainRule(Strict):
    """Documents whose URL host matches `host` (a glob: `*.wikipedia.org`) and whose path matches
    `path` (a regular expression searched in the path, `^/wiki/`) get `domain`."""

    host: str = "*"
    path: str | None = None
    domain: str = Field(pattern=NAME_PATTERN)

    @field_validator("path")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as error:
                raise ValueError(f"not a regular expression: {error}") from None
        return value


class DomainClassifierConfig(Strict):
    # A fastText model whose labels are domains, trained from labelled examples with
    # `corpus-pipeline quality train-classifier --label news=DIR --label code=FILE ...`; None: none.
    model_path: str | None = None
    # Its top label decides only at this probability or more; below it the source's default stays.
    min_score: float = Field(0.5, ge=0.0, le=1.0)


class DomainsConfig(Strict):
    """`domains:` the first rule matching a document's URL decides its domain; no match (or no
    URL): the classifier's label when it is sure enough, else the source's default domain
    (`extract.domain`, `ingest.domain`)."""

    rules: list[DomainRule] = Field(default_factory=list)
    classifier: DomainClassifierConfig = Field(default_factory=DomainClassifierConfig)
