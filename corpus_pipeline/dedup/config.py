"""The `dedup:` section: the methods that find duplicates, their thresholds, and which copy is kept."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from corpus_pipeline.config_base import Strict


class SimhashConfig(Strict):
    """Document-level SimHash (dedup/simhash.py): 64-bit fingerprints of the MinHash shingles; two
    documents within max_distance differing bits are duplicates."""

    # 3, Manku et al.'s choice for 64-bit fingerprints (WWW 2007): 4 blocks of 16 bits keep a block
    # bucket at n / 65,536 unrelated documents (15 at 10^6), and two unrelated fingerprints are this
    # close with probability 2.4 * 10^-15. 3 bits is a shingle Jaccard of about 0.97: on web_docs.jsonl
    # with planted copies (`eval dedup --plant 1`) it finds the 4 real page copies and 0 of the 89
    # planted copies at J >= 0.7, precision 1.0 (planted copies at J 0.8-0.9 differ in 11 bits on
    # average, 9.5 in Chinese). max_distance 10 finds 32 of the 89, still at precision 1.0, but its 11
    # blocks of 6 bits put n / 64 documents in a bucket. MinHash at 0.7 finds 70: SimHash is the cheap
    # pass for near-exact copies (fingerprints 3-4x faster than 128-permutation signatures).
    # At most 15: past that, blocks of 4 bits put 1/16 of the corpus in every bucket.
    max_distance: int = Field(3, ge=0, le=15)
    # Guard against huge buckets: each member of a bucket, sorted by fingerprint then id, is compared
    # with the next `window` members only. 64 compares every pair of any bucket up to 65 members
    # (n / 65,536 is 65 at 4 * 10^6 documents), and a bucket of 100,000 identical boilerplate pages
    # costs 6.4 * 10^6 comparisons instead of 5 * 10^9; identical fingerprints sort next to each other.
    window: int = Field(64, ge=1)


class ParagraphDedupConfig(Strict):
    """CCNet-style boilerplate removal (dedup/paragraphs.py): paragraphs found in at least
    min_documents documents are removed from all of them."""

    # 5: on web_docs.jsonl (1,432 pages of many sites) the 36 paragraphs in >= 5 documents are
    # comment, contact and heading boilerplate ("Kommentare", "Pressekontakt:", "Liebe Grüße",
    # "Ingredients") and list markers ("1.)", "[13]"), and on
    # People's Daily articles the 18 are bylines and captions (图片：, 本报评论员); at >= 2, the 486
    # include recipe lines such as "300 g Mehl" and shared quotations: content, not boilerplate.
    min_documents: int = Field(5, ge=2)
    # A document left with fewer characters (after dedup normalization, so "***" counts 0) is
    # rejected as empty_after_paragraph_dedup. 1 rejects only what removal emptied: how short is
    # too short is the quality stage's call (gopher_word_count), not dedup's.
    min_chars: int = Field(1, ge=1)


class SemanticDedupConfig(Strict):
    """SemDeDup (dedup/semantic.py): k-means clusters of the documents' embeddings (the embed
    stage's `embedding` column), and within a cluster every pair at or above a cosine threshold."""

    # Cosine of two unit vectors. 0.9 on 200 real pages with 92 planted paraphrases: e5 precision
    # 0.978, recall 0.946 (at 0.85: 0.519 / 0.924, unrelated pages of one language sit near 0.8);
    # MiniLM 1.000 / 0.489 (at 0.85: 0.966 / 0.620). benchmarks/bench_semantic_dedup.py.
    threshold: float = Field(0.9, gt=0.0, le=1.0)
    # Average documents per k-means cluster: k = ceil(n / cluster_size). Pairs are compared within a
    # cluster only, so the work is ~n * cluster_size dot products (10^9 for 10^6 documents at 1,000:
    # seconds of numpy) instead of n^2 / 2; a paraphrase lands in its original's cluster unless the
    # two sit near a border, which a larger cluster makes rarer.
    cluster_size: int = Field(1000, ge=2)
    # k-means is fitted on at most this many vectors (a seeded sample, dedup.seed), then every
    # vector is assigned to its nearest centre: 100,000 x 384 float32 is 150 MB.
    fit_sample: int = Field(100_000, ge=100)
    # The vectors are gathered on the driver (768 bytes each at 384 dimensions, ~1.5 GB at this
    # bound, ids and keep columns besides): past it the stage refuses rather than exhaust the driver.
    max_documents: int = Field(2_000_000, ge=1)


class DedupConfig(Strict):
    """Duplicate removal; methods run in order, each on what the previous one kept."""

    # "url" (one canonical URL fetched several times keeps its latest fetch) is opt-in: a page whose
    # text changed between fetches is a new version, not a copy. "simhash" is opt-in: it finds only
    # near-exact copies, a subset of what MinHash finds. "paragraph" (boilerplate removal) is opt-in
    # and rewrites the text, so the methods after it compare the cleaned text; put it after the
    # document methods (["exact", "minhash", "paragraph"]) so three copies of one article are one
    # document before their paragraphs are counted, and are not emptied as "repeated" paragraphs.
    # "semantic" (SemDeDup on the embed stage's vectors) is opt-in: it needs the embed stage
    # (embeddings.enabled) and drops paraphrases as well as copies.
    methods: list[Literal["url", "exact", "minhash", "simhash", "paragraph", "semantic"]] = Field(
        default_factory=lambda: ["exact", "minhash"], min_length=1
    )

    # Jaccard threshold for banding and for verifying a candidate pair by its estimated Jaccard. 0.7
    # (not 0.8) so that pairs at J=0.8 are caught: 98.6% become candidates and 99.7% pass verification.
    threshold: float = Field(0.7, gt=0.0, lt=1.0)
    num_perm: int = Field(128, ge=8, le=1024)
    # datasketch's weights for choosing bands x rows; recall weighs more: a missed copy stays forever.
    false_positive_weight: float = Field(0.2, ge=0.0)
    false_negative_weight: float = Field(0.8, ge=0.0)
    word_ngram: int = Field(5, ge=1)
    char_ngram: int = Field(5, ge=1)  # Chinese, Japanese, Thai...: ~3 words of Chinese
    seed: int = 1
    # Kept document of a cluster: highest value of this column when the input has it, then
    # earliest `date`, then smallest id.
    prefer_column: str | None = "quality_classifier_score"
    # Before all of that, the `source` column: a cluster keeps the copy of the first source listed
    # here that it holds (sources not listed, and documents without one, come after them). A run
    # with pipeline.sources fills it from their priorities.
    source_priority: list[str] = Field(default_factory=list)
    # Output parts (hash of id); None: as many as the input has, more where one would hold over 128
    # MB of text (dedup/driver_budget.py). Fixed by the data, not by Spark's partitioning, so the
    # output bytes do not depend on the cluster.
    output_parts: int | None = Field(None, ge=1)
    simhash: SimhashConfig = Field(default_factory=SimhashConfig)
    paragraph: ParagraphDedupConfig = Field(default_factory=ParagraphDedupConfig)
    semantic: SemanticDedupConfig = Field(default_factory=SemanticDedupConfig)

    @field_validator("methods")
    @classmethod
    def _each_method_once(cls, methods: list[str]) -> list[str]:
        repeated = sorted({m for m in methods if methods.count(m) > 1})
        if repeated:
            raise ValueError(f"each method may appear once; repeated: {', '.join(repeated)}")
        return methods
