"""quality: every quality signal of a document in one pass, as typed columns, then the keep rules.

One pass: the text is split once (`words.segment`: lines, paragraphs, word units, line repeats,
the lower-cased text) and every family reads those splits: Gopher quality and repetition, C4,
FineWeb, the spam signals (spam.py), the corpus measures (vocabulary coverage, character entropy,
content hash), the blocklists and, when a model is configured, the fastText quality classifier. datatrove's four
blocks each tokenize again with spaCy; here the Gopher, C4 and FineWeb signals together take ~2 ms
on a 5.3 KB page (530 docs/s against datatrove's 7 docs/s for its four blocks, both measured on a
loaded 2-core machine by benchmarks/bench_quality.py --quick).

Then, in this order: the blocklists (each its own reason `blocklist_<name>`), the keep rules
(`rules.py`, each rule its own reason; the document's `domain` picks the rule set), and noise
retention (a seeded share of the rejected documents kept, flagged `retained_noise`, counted in
the stats under `retained_noise`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from corpus_pipeline.quality import c4, fineweb, gopher, spam
from corpus_pipeline.quality.blocklist import Blocklists, list_path
from corpus_pipeline.quality.config import QualityConfig
from corpus_pipeline.quality.corpus_measures import char_entropy, content_hash, vocab_coverage
from corpus_pipeline.quality.reference_vocab import SHIPPED_LANGUAGES, shipped_path, vocabulary_for
from corpus_pipeline.quality.rules import KeepRules, retained_as_noise
from corpus_pipeline.stages.base import DocumentStage, Drop, Verdict
from corpus_pipeline.stats import StageStats
from corpus_pipeline.word_units import STOP_WORDS, is_character_language, segment, stop_word_set

CLASSIFIER_SIGNAL = "quality_classifier_score"
HEAD_SIGNAL = "quality_score"
CORPUS_SIGNALS = {"vocab_coverage": pa.float32(), "char_entropy": pa.float32(), "dup_content_hash": pa.int64()}
NOISE_FIELD = pa.field("retained_noise", pa.bool_())
STATS_GROUP = "retained_noise"


def _family_fields(names: tuple[str, ...], ints: frozenset[str]) -> list[pa.Field]:
    return [pa.field(name, pa.int32() if name in ints else pa.float32()) for name in names]


SIGNAL_FIELDS: tuple[pa.Field, ...] = (
    *_family_fields(gopher.QUALITY_SIGNALS + gopher.REPETITION_SIGNALS, gopher.INT_SIGNALS),
    *_family_fields(c4.SIGNALS, c4.INT_SIGNALS),
    *_family_fields(fineweb.SIGNALS, frozenset()),
    *_family_fields(spam.SIGNALS, spam.INT_SIGNALS),
    *(pa.field(name, kind) for name, kind in CORPUS_SIGNALS.items()),
    pa.field(CLASSIFIER_SIGNAL, pa.float32()),
    pa.field(HEAD_SIGNAL, pa.float32()),
)


@dataclass(frozen=True)
class LanguageContext:
    """What the signals need to know about a language, resolved once per language and process."""

    character_units: bool
    stop_words: frozenset[str] | None
    vocabulary: frozenset[str] | None
    short_line_chars: int


class QualityStage(DocumentStage):
    name = "quality"
    input_columns = ("id", "text", "language", "url", "domain")

    def __init__(self, config: QualityConfig | None = None):
        self.config = config or QualityConfig()
        # Built now, not per document: a missing list file or an unknown rule signal fails at once.
        self.blocklists = Blocklists(self.config.blocklists)
        self.spam = spam.SpamSignals(self.config.spam)
        self.output_fields = (
            *SIGNAL_FIELDS,
            *(pa.field(name, pa.int32()) for name in self.blocklists.column_names),
            NOISE_FIELD,
        )
        known = {f.name for f in self.output_fields} - {NOISE_FIELD.name, "dup_content_hash"}
        by_domain = {domain: self.config.domain_rules(domain) for domain in self.config.rules_by_domain}
        self.rules = KeepRules(self.config.rules, known, by_domain)
        self._classifier = None
        self._scorer = None
        self._languages: dict[str | None, LanguageContext] = {}

    def config_fingerprint(self) -> str:
        """The config, and the content of every list, vocabulary and model file the stage reads:
        editing a blocklist or retraining the classifier must rerun the stage."""
        c = self.config
        files = [list_path(b) for b in c.blocklists] + self.spam.files()
        files += [Path(p) for p in c.reference_vocabularies.values()]
        files += [shipped_path(lang) for lang in SHIPPED_LANGUAGES if lang not in c.reference_vocabularies]
        if c.classifier.model_path:
            files.append(Path(c.classifier.model_path))
        if c.score_head.enabled:
            from corpus_pipeline.embeddings.quality_head import SHIPPED_HEAD, sidecar_path

            head = Path(c.score_head.path) if c.score_head.path else SHIPPED_HEAD
            files += [head, sidecar_path(head)]
        return repr(c) + "".join(f" {path.name}={_file_digest(path)}" for path in files)

    def __getstate__(self) -> dict:
        # Executors get the config; each process loads the model and vocabularies itself.
        return {**self.__dict__, "_classifier": None, "_scorer": None, "_languages": {}}

    def setup(self) -> None:
        classifier = self.config.classifier
        if classifier.model_path and self._classifier is None:
            from corpus_pipeline.quality.classifier import QualityClassifier

            self._classifier = QualityClassifier(classifier.model_path, classifier.positive_label)
        head = self.config.score_head
        if head.enabled and self._scorer is None:
            from corpus_pipeline.embeddings.quality_head import SHIPPED_HEAD
            from corpus_pipeline.embeddings.quality_score import QualityScorer

            self._scorer = QualityScorer.load(head.path or SHIPPED_HEAD, head.device, head.batch_size)

    def language_context(self, language: str | None) -> LanguageContext:
        if language not in self._languages:
            c = self.config
            stop_words = c.stop_words_by_language.get(language) or STOP_WORDS.get(language)
            self._languages[language] = LanguageContext(
                character_units=is_character_language(language),
                stop_words=stop_word_set(stop_words) if stop_words else None,
                vocabulary=vocabulary_for(language, c.reference_vocabularies),
                short_line_chars=c.short_line_chars_by_language.get(language, c.short_line_chars),
            )
        return self._languages[language]

    def signals(self, text: str, language: str | None, url: str | None = None) -> dict:
        """Every signal column of one document (blocklist counts included), in one pass."""
        context = self.language_context(language)
        seg = segment(text)
        signals = gopher.quality_signals(seg, context.stop_words)
        signals.update(gopher.repetition_signals(seg))
        signals.update(c4.signals(seg))
        signals.update(fineweb.signals(seg, context.short_line_chars))
        signals.update(self.spam.signals(seg))
        signals["vocab_coverage"] = (
            vocab_coverage(text, seg.words, context.vocabulary, context.character_units, language)
            if context.vocabulary is not None
            else None
        )
        signals["char_entropy"] = char_entropy(text)
        signals["dup_content_hash"] = content_hash(text, seg.lower)
        signals.update(zip(self.blocklists.column_names, self.blocklists.hits(url, seg.lower, language), strict=True))
        signals[CLASSIFIER_SIGNAL] = self._score(text)
        return signals

    def _score(self, text: str) -> float | None:
        if self._classifier is None:
            return None
        from corpus_pipeline.fasttext_models import classifier_tokens

        return self._classifier.score(classifier_tokens(text))

    def verdict(self, signals: dict, language: str | None, text_chars: int, domain: str | None = None) -> Verdict:
        counts = [signals[name] for name in self.blocklists.column_names]
        blocked = self.blocklists.verdict(counts, text_chars)
        if blocked is not None:
            return Drop(*blocked)
        return self.rules.verdict(signals, language, domain)

    def process_batch(self, docs: list[dict], stats: StageStats) -> list[Verdict]:
        if self._scorer is not None:  # one batched encoder call per task batch, not one per document
            scores = self._scorer.scores([doc.get("text") or "" for doc in docs])
            for doc, score in zip(docs, scores.tolist(), strict=True):
                doc[HEAD_SIGNAL] = score
        return [self.process(doc, stats) for doc in docs]

    def process(self, doc: dict, stats: StageStats) -> Verdict:
        text = doc.get("text") or ""
        language = doc.get("language")
        signals = self.signals(text, language, doc.get("url"))
        signals[HEAD_SIGNAL] = doc.get(HEAD_SIGNAL)  # process_batch's, when the head is on
        doc.update(signals)
        verdict = self.verdict(signals, language, len(text), doc.get("domain"))
        if verdict is not None and retained_as_noise(doc["id"], self.config.noise_retention, self.config.noise_seed):
            doc[NOISE_FIELD.name] = True
            stats.count(STATS_GROUP, verdict.reason)
            return None
        doc[NOISE_FIELD.name] = False
        return verdict


def _file_digest(path: Path) -> str:
    if not path.is_file():
        return "missing"
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
