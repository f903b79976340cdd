"""Accuracy of a language-ID predictor on labelled sentences (``langid/sentences/<iso>.txt``).

Each file holds one sentence per line and is named by the ISO 639-1 code of its language.
A language is evaluated only when the model has a label for it (directly or through
``LANGUAGE_ALIASES``); the others are reported as not evaluated rather than scored 0, because
a model cannot be wrong about a language it was never meant to know.
"""

from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

LANGUAGE_ALIASES: dict[str, str] = {"nb": "no"}
"""Data code -> model label also counted as correct. lid.176 knows Norwegian Bokmål only as the
macrolanguage ``no``, so ``no`` on a Bokmål sentence is right."""

_FASTTEXT_LABEL_PREFIX = "__label__"


def strip_label_prefix(label: str) -> str:
    """``__label__zh`` -> ``zh`` (fastText labels); other labels are returned unchanged."""
    return label[len(_FASTTEXT_LABEL_PREFIX) :] if label.startswith(_FASTTEXT_LABEL_PREFIX) else label


def load_sentences(directory: str | Path, max_per_language: int | None = None) -> dict[str, list[str]]:
    """Language code (file stem) -> its non-empty sentences, in file order, at most max_per_language."""
    files = sorted(Path(directory).glob("*.txt"))
    if not files:
        raise FileNotFoundError(f"no <iso>.txt sentence files in {directory}")
    sentences: dict[str, list[str]] = {}
    for file in files:
        # split("\n"), not splitlines(): sentences may contain U+2028, \x85 and the like, which
        # splitlines() would wrongly treat as line ends.
        lines = [line.strip() for line in file.read_text(encoding="utf-8").split("\n")]
        lines = [line for line in lines if line]
        sentences[file.stem] = lines[:max_per_language] if max_per_language is not None else lines
    return sentences


def read_fasttext_labels(model_path: str | Path) -> set[str]:
    """Labels (without ``__label__``) of a fastText .bin/.ftz model, read from its dictionary.

    fasttext-predict has no ``get_labels()``, so the labels are read from the file: magic and
    version (2 x int32), the training args (12 x int32 + 1 double), the dictionary header
    (size, nwords, nlabels: int32; ntokens, pruneidx_size: int64), then ``size`` entries of
    NUL-terminated word, int64 count, int8 type (1 = label).
    """
    with open(model_path, "rb") as handle:
        magic, _version = struct.unpack("<ii", handle.read(8))
        if magic != 793712314:
            raise ValueError(f"{model_path} is not a fastText model (bad magic number)")
        handle.read(12 * 4 + 8)
        size, _nwords, nlabels, _ntokens, _pruneidx = struct.unpack("<iiiqq", handle.read(28))
        labels: set[str] = set()
        for _ in range(size):
            word = bytearray()
            while (byte := handle.read(1)) != b"\0":
                if not byte:
                    raise ValueError(f"{model_path}: truncated dictionary")
                word += byte
            _count, entry_type = struct.unpack("<qb", handle.read(9))
            if entry_type == 1:
                labels.add(strip_label_prefix(word.decode("utf-8")))
    if len(labels) != nlabels:
        raise ValueError(f"{model_path}: read {len(labels)} labels, header says {nlabels}")
    return labels


@dataclass(frozen=True)
class LanguageScore:
    language: str
    accepted_labels: tuple[str, ...]  # predictions counted as correct
    sentences: int
    correct: int
    accuracy: float
    top_confusions: tuple[tuple[str, int], ...]  # most frequent wrong predictions


@dataclass(frozen=True)
class LangIdReport:
    per_language: dict[str, LanguageScore]
    not_evaluated: dict[str, str]  # language -> reason
    sentences: int
    correct: int
    micro_accuracy: float  # correct / sentences over all evaluated languages
    macro_accuracy: float  # mean of per-language accuracies

    def to_dict(self) -> dict:
        return asdict(self)

    def format_table(self) -> str:
        lines = [f"{'lang':<6}{'n':>6}{'correct':>9}{'acc':>8}  top confusions"]
        for language, score in self.per_language.items():
            confusions = ", ".join(f"{label}:{count}" for label, count in score.top_confusions)
            lines.append(f"{language:<6}{score.sentences:>6}{score.correct:>9}{score.accuracy:>8.3f}  {confusions}")
        lines.append(
            f"{'micro':<6}{self.sentences:>6}{self.correct:>9}{self.micro_accuracy:>8.3f}"
            f"  over {len(self.per_language)} languages"
        )
        lines.append(f"{'macro':<6}{'':>15}{self.macro_accuracy:>8.3f}")
        for language, reason in self.not_evaluated.items():
            lines.append(f"not evaluated: {language} ({reason})")
        return "\n".join(lines)


def score_langid(
    sentences: Mapping[str, list[str]],
    predict: Callable[[list[str]], list[str]],
    supported_labels: set[str],
    aliases: Mapping[str, str] = LANGUAGE_ALIASES,
) -> LangIdReport:
    """Accuracy of ``predict`` (a batch of texts -> one label each) per language and overall.

    Labels may carry fastText's ``__label__`` prefix (in predictions and supported_labels alike).
    A prediction is correct when it equals the language code or its alias. Languages with neither
    in ``supported_labels``, or without sentences, are listed in ``not_evaluated``.
    """
    supported = {strip_label_prefix(label) for label in supported_labels}
    per_language: dict[str, LanguageScore] = {}
    not_evaluated: dict[str, str] = {}
    for language in sorted(sentences):
        texts = sentences[language]
        accepted = tuple(label for label in (language, aliases.get(language)) if label)
        if not supported.intersection(accepted):
            not_evaluated[language] = "no model label"
            continue
        if not texts:
            not_evaluated[language] = "no sentences"
            continue
        predictions = [strip_label_prefix(label) for label in predict(list(texts))]
        if len(predictions) != len(texts):
            raise ValueError(f"predict returned {len(predictions)} labels for {len(texts)} {language} sentences")
        correct = sum(label in accepted for label in predictions)
        confusions = Counter(label for label in predictions if label not in accepted)
        per_language[language] = LanguageScore(
            language, accepted, len(texts), correct, correct / len(texts), tuple(confusions.most_common(3))
        )
    total = sum(score.sentences for score in per_language.values())
    correct = sum(score.correct for score in per_language.values())
    return LangIdReport(
        per_language=per_language,
        not_evaluated=not_evaluated,
        sentences=total,
        correct=correct,
        micro_accuracy=correct / total if total else 0.0,
        macro_accuracy=(
            sum(score.accuracy for score in per_language.values()) / len(per_language) if per_language else 0.0
        ),
    )
