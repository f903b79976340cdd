"""Config of the run report (`corpus-pipeline report`): what it shows, and the drift alert bounds."""

from __future__ import annotations

from pydantic import Field

from corpus_pipeline.config.base import Strict


class DriftBounds(Strict):
    """An alert fires when a figure moves by more than its bound against the previous snapshot."""

    # The largest change of one language's share of the final documents, in absolute points
    # (0.05: English going from 30% to 36% of the corpus alerts; 30% to 33% does not).
    language_share: float = Field(0.05, ge=0.0, le=1.0)
    # The same for one domain (host) among the final documents.
    domain_share: float = Field(0.05, ge=0.0, le=1.0)
    # The change of dedup's drop rate (duplicates / documents in), absolute: a recrawl that suddenly
    # finds 10% more duplicates is a crawl or dedup problem, not a change of the web.
    duplicate_rate: float = Field(0.02, ge=0.0, le=1.0)
    # The largest change of one mix group's achieved share of the shard tokens (mix.by: a source,
    # a domain...), absolute: a source whose documents halved moves its share even under a fixed
    # target once the cap on repeats binds (code from 10% to 5%: the alert a team wished it had had).
    mix_share: float = Field(0.02, ge=0.0, le=1.0)
    # Jensen-Shannon divergence (bits, 0 to 1) between the two snapshots' token unigram
    # distributions, tokens compared by their string so a retrained tokenizer still compares.
    # Measured on the demo corpus (362 documents, 409k tokens, en and zh): two random halves differ
    # by 0.052-0.061 from sampling alone; the English documents against the whole corpus by 0.21;
    # English against Chinese by 0.99. The noise shrinks with size (~1/tokens), so on real
    # snapshots 0.1 leaves room for a smaller bound.
    token_jsd: float = Field(0.1, ge=0.0, le=1.0)


class ReportConfig(Strict):
    # Examples shown per drop reason (rejected) and per stage or quality rule (kept).
    examples_per_rule: int = Field(3, ge=0)
    # Characters of an example's text shown, after PII redaction.
    example_chars: int = Field(400, ge=20)
    histogram_bins: int = Field(30, ge=2, le=200)
    # Domains named in the domain mix and compared for drift; the rest are summed as "other".
    top_domains: int = Field(15, ge=1)
    # Tokens named in the token distribution plot and in the drift table.
    top_tokens: int = Field(20, ge=1)
    drift: DriftBounds = Field(default_factory=DriftBounds)
