"""Config of the run report (`corpus-pipeline report`): what it shows, and the drift alert bounds."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from corpus_pipeline.config_base import Strict


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
    # The largest change of one topic cluster's share within its language/domain group (report.diversity:
    # the previous snapshot's sample assigned to this snapshot's clusters), absolute. The sample is
    # chosen by a hash of the id, so an unchanged corpus drifts by exactly 0 (measured: 0.0 with the
    # rows in another order), and only new or gone documents move a share. Measured with 150 documents
    # per group and 8 clusters: ABC news against a snapshot holding only the first 1,500 of its 3,157
    # blocks (rural news; the rest of it and all the science news missing) moves one cluster by 0.08
    # (a science cluster, 0% -> 8%), which 0.05 catches.
    cluster_share: float = Field(0.05, ge=0.0, le=1.0)


class DiversityConfig(Strict):
    """Topic clusters of the final corpus (report/diversity.py): k-means on sentence embeddings of a
    seeded sample of each language/domain group, their shares and a coverage figure."""

    # Off by default: it embeds the sample of this run and of the previous snapshot with a transformer
    # (~18 documents/s on 2 CPU cores: 200 documents of 4 groups, twice, take ~90 s; needs the `embed`
    # extra). Off, the report says so and stays as cheap as before.
    enabled: bool = False
    # Documents sampled per group, chosen by a seeded hash of their id (the same documents each night
    # while they stay in the corpus); fewer than `min_documents` in a group: not clustered, listed.
    sample_per_group: int = Field(200, ge=2)
    min_documents: int = Field(20, ge=2)
    clusters: int = Field(8, ge=2, le=100)
    seed: int = 0
    # Characters of a text embedded: its start (~150 word pieces of English).
    text_chars: int = Field(600, ge=20)
    model: str = "all-MiniLM-L6-v2"
    device: Literal["auto", "cpu", "cuda"] = "auto"


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
    diversity: DiversityConfig = Field(default_factory=DiversityConfig)
