"""The `domains:` section: the rules (and the classifier) that give a document its `domain`, applied
by both source stages (extract, ingest)."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from corpus_pipeline.config_base import NAME_PATTERN, Strict


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
