"""The `pii:` section: the PII types found, redaction, and the density keep rule."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, NonNegativeFloat

from corpus_pipeline.config_base import Strict

PiiTypeName = Literal["email", "phone", "ip", "card", "iban", "ssn", "cn_id", "secret"]


class PiiConfig(Strict):
    # Types detected, counted and (with `redact`) replaced; a type left out gets a null count column.
    types: list[PiiTypeName] = Field(
        default_factory=lambda: ["email", "phone", "ip", "card", "iban", "ssn", "cn_id", "secret"]
    )
    # Replace every match with its typed placeholder (<EMAIL>, <PHONE>...); False: count only.
    redact: bool = True
    # Also find `name [at] domain [dot] com`, `name(at)domain.com` and `name AT domain DOT com`.
    obfuscated_emails: bool = True
    # Private, loopback, link-local and reserved addresses identify nobody: only public ones count.
    public_ips_only: bool = True
    # A value assigned to a name like api_key, token, password or secret is a secret when it has at
    # least secret_min_length characters, a digit, and this Shannon entropy in bits per character.
    # 3.0 passes random keys (16 random base62 characters average 3.77) and passwords such as
    # `password123` (3.28), not placeholders like `changeme` (2.75) or `xxxxxxxx1` (0.50).
    secret_min_length: int = Field(8, ge=1)
    secret_min_entropy: float = Field(3.0, ge=0.0)
    # Keep rule: drop a document whose PII matches per 1,000 characters exceed max_density (all
    # enabled types together; None turns the rule off) or a per-type limit in max_density_by_type,
    # e.g. {"secret": 0.1}. Density is meaningless on a short text (one address in a 120-character
    # note is 8.3 per 1,000), so both apply only from density_min_matches matches on. Of the 1,432
    # real documents of shared/data/dedup/web_docs.jsonl, 80 hold PII and these defaults drop 2: a
    # list of 362 MPs' addresses (9.8 per 1,000) and a directory of 61 hotline numbers (11.7); the
    # next densest document with 5+ matches has 3.7.
    max_density: float | None = Field(5.0, gt=0.0)
    max_density_by_type: dict[PiiTypeName, NonNegativeFloat] = Field(default_factory=dict)
    density_min_matches: int = Field(5, ge=1)
