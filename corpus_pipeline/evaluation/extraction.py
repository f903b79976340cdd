"""Score extracted main text against gold labels (the format of ``web/gold.jsonl``).

Two kinds of gold page exist:

* ``snippets`` (trafilatura evaluation set): strings that must appear (``with``) and must not
  appear (``without``) in the extracted text. Matching ignores all whitespace on both sides,
  because extractors legitimately differ in how they join lines and blocks.
* ``full`` (article-extraction-benchmark, magic-html): the gold main text, compared as a bag of
  tokens (multiset intersection), as the article-extraction-benchmark does.

Both sides are NFKC-normalised first so that the pipeline's own Unicode normalisation (full-width
digits, NBSP, ligatures) is not counted as an extraction error.

Per-page figures. Every page is reduced to counts ``tp, fp, fn``:

* snippets: tp = ``with`` strings found, fn = ``with`` strings missing, fp = ``without`` strings
  found (tn = ``without`` strings absent is kept for the micro accuracy only);
* full: tp = token overlap, fp = predicted tokens not in the overlap, fn = gold tokens not in it.

precision = tp / (tp + fp) and recall = tp / (tp + fn). When a ratio is 0/0 the page scores 1 if
it has no error of the other kind and 0 otherwise (the article-extraction-benchmark rule):

* empty output on a page with something to find: precision 0 and recall 0, so returning nothing
  can never buy precision;
* a snippet page whose output contains none of the checked strings: precision 0 (no evidence the
  right text was extracted), recall 0;
* empty gold text and empty output: precision 1 and recall 1.

A page whose extraction is missing (``None`` or absent from the mapping: the pipeline dropped it)
scores precision 0 and recall 0 whatever its gold, and is counted in ``missing``; it is never
skipped, so dropping pages always lowers the scores.

Aggregates (``GroupScore``): precision and recall are macro averages of the per-page figures over
all pages of the group (missing pages included); F1 is the harmonic mean of those two averages.
For snippet pages the micro figures of the trafilatura evaluation are given as well (counts summed
over the group's snippet pages; there a missing page counts as empty output: all its ``with``
strings missing, all its ``without`` strings absent).
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

import regex

# Scripts written (or, for Hangul, best compared) character by character: one token per character.
_CHAR_SCRIPTS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
# A token is one such character, or a run of other letters/marks/digits. Punctuation and symbols
# are dropped: extractors differ in quotes and spacing around them, and they carry little content.
_TOKEN_RE = regex.compile(rf"[{_CHAR_SCRIPTS}]|[[\p{{L}}\p{{M}}\p{{N}}]--[{_CHAR_SCRIPTS}]]+", regex.V1)
_WHITESPACE_RE = regex.compile(r"\s+")
_HAN_RE = regex.compile(r"\p{Han}")

CHINESE_HAN_SHARE = 0.3
"""A page is Chinese when Han characters make up at least this share of its non-space gold text."""


@dataclass(frozen=True)
class GoldPage:
    id: str
    url: str
    kind: str  # "snippets" or "full"
    with_snippets: tuple[str, ...] = ()
    without_snippets: tuple[str, ...] = ()
    text: str = ""

    @property
    def source(self) -> str:
        """The benchmark the page comes from: the id's prefix before the first ``/``."""
        return self.id.split("/", 1)[0]


def load_gold(path: str | Path) -> list[GoldPage]:
    """Read gold pages from a JSON-lines file; raise ValueError naming the line on bad input."""
    pages: list[GoldPage] = []
    seen_ids: set[str] = set()
    with open(path, encoding="utf-8") as handle:
        for line_number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                page = _parse_gold_line(line)
            except (ValueError, KeyError, TypeError) as error:
                raise ValueError(f"{path}:{line_number}: invalid gold record: {error}") from error
            if page.id in seen_ids:
                raise ValueError(f"{path}:{line_number}: duplicate gold id {page.id!r}")
            seen_ids.add(page.id)
            pages.append(page)
    return pages


def _parse_gold_line(line: str) -> GoldPage:
    record = json.loads(line)
    if not isinstance(record, dict):
        raise TypeError("expected a JSON object")
    page_id, url, kind = record["id"], record["url"], record["kind"]
    if not isinstance(page_id, str) or "/" not in page_id:
        raise ValueError(f"id must be a string 'source/name', got {page_id!r}")
    if kind == "full":
        if not isinstance(record["text"], str):
            raise TypeError("'text' must be a string")
        return GoldPage(id=page_id, url=url, kind=kind, text=record["text"])
    if kind == "snippets":
        with_snippets = _snippet_list(record, "with")
        without_snippets = _snippet_list(record, "without")
        return GoldPage(page_id, url, kind, with_snippets, without_snippets)
    raise ValueError(f"unknown kind {kind!r} (expected 'snippets' or 'full')")


def _snippet_list(record: dict, key: str) -> tuple[str, ...]:
    values = record[key]
    if not isinstance(values, list) or not all(isinstance(value, str) for value in values):
        raise TypeError(f"{key!r} must be a list of strings")
    # An all-whitespace snippet would match every output and silently inflate the counts.
    if any(not _squash(value) for value in values):
        raise ValueError(f"{key!r} contains an empty snippet")
    return tuple(values)


def _squash(text: str) -> str:
    """NFKC-normalise and remove all whitespace (snippet matching is whitespace-insensitive)."""
    return _WHITESPACE_RE.sub("", unicodedata.normalize("NFKC", text))


def tokenize(text: str) -> list[str]:
    """Tokens for bag-of-tokens overlap: words, or single CJK/kana/Hangul characters."""
    return _TOKEN_RE.findall(unicodedata.normalize("NFKC", text))


def is_chinese(page: GoldPage) -> bool:
    """Han characters are at least 30% of the non-space gold text (``with`` strings for snippets).

    Japanese pages rich in kanji also pass this test; it is a script test, not language ID.
    """
    text = page.text if page.kind == "full" else "".join(page.with_snippets)
    non_space = _WHITESPACE_RE.sub("", text)
    if not non_space:
        return False
    return len(_HAN_RE.findall(non_space)) / len(non_space) >= CHINESE_HAN_SHARE


@dataclass(frozen=True)
class PageScore:
    id: str
    source: str
    kind: str
    chinese: bool
    missing: bool
    precision: float
    recall: float
    tp: int
    fp: int
    fn: int
    tn: int  # snippet pages only: `without` strings absent; 0 for full pages


def _ratio(hits: int, errors: int, other_errors: int) -> float:
    """hits / (hits + errors); for 0/0 score 1 only when the page has no error of the other kind."""
    if hits + errors:
        return hits / (hits + errors)
    return 1.0 if other_errors == 0 else 0.0


def score_page(page: GoldPage, extracted: str | None) -> PageScore:
    """Score one page (see the module docstring for the rules)."""
    output = "" if extracted is None else extracted
    if page.kind == "snippets":
        squashed = _squash(output)
        tp = sum(_squash(snippet) in squashed for snippet in page.with_snippets)
        fp = sum(_squash(snippet) in squashed for snippet in page.without_snippets)
        fn, tn = len(page.with_snippets) - tp, len(page.without_snippets) - fp
    else:
        predicted, gold = Counter(tokenize(output)), Counter(tokenize(page.text))
        tp = sum((predicted & gold).values())
        fp, fn, tn = sum(predicted.values()) - tp, sum(gold.values()) - tp, 0
    missing = extracted is None
    precision = 0.0 if missing else _ratio(tp, fp, fn)
    recall = 0.0 if missing else _ratio(tp, fn, fp)
    return PageScore(page.id, page.source, page.kind, is_chinese(page), missing, precision, recall, tp, fp, fn, tn)


def _harmonic_mean(a: float, b: float) -> float:
    return 2 * a * b / (a + b) if a + b else 0.0


@dataclass(frozen=True)
class SnippetMicro:
    """Trafilatura-style micro figures over the snippet pages of a group."""

    tp: int
    fp: int
    fn: int
    tn: int
    precision: float
    recall: float
    f1: float
    accuracy: float  # (tp + tn) / all checked strings


@dataclass(frozen=True)
class GroupScore:
    pages: int
    missing: int
    precision: float  # macro average over pages
    recall: float  # macro average over pages
    f1: float  # harmonic mean of the macro precision and recall
    snippet_micro: SnippetMicro | None  # None when the group has no snippet pages


def _group_score(scores: list[PageScore]) -> GroupScore:
    count = len(scores)
    precision = sum(score.precision for score in scores) / count if count else 0.0
    recall = sum(score.recall for score in scores) / count if count else 0.0
    snippet_scores = [score for score in scores if score.kind == "snippets"]
    micro = None
    if snippet_scores:
        tp, fp, fn, tn = (sum(getattr(score, name) for score in snippet_scores) for name in ("tp", "fp", "fn", "tn"))
        micro_p, micro_r = _ratio(tp, fp, fn), _ratio(tp, fn, fp)
        total = tp + fp + fn + tn
        micro = SnippetMicro(
            tp,
            fp,
            fn,
            tn,
            micro_p,
            micro_r,
            _harmonic_mean(micro_p, micro_r),
            (tp + tn) / total if total else 0.0,
        )
    return GroupScore(
        count,
        sum(score.missing for score in scores),
        precision,
        recall,
        _harmonic_mean(precision, recall),
        micro,
    )


@dataclass(frozen=True)
class ExtractionReport:
    overall: GroupScore
    by_source: dict[str, GroupScore]
    chinese: GroupScore
    unknown_ids: int  # extracted ids with no gold page: a non-zero value hints at an id mismatch
    pages: list[PageScore] = field(repr=False)
    # language of the gold text (see `score_extraction`) -> its pages' score, most pages first
    by_language: dict[str, GroupScore] = field(default_factory=dict)

    def to_dict(self, include_pages: bool = False) -> dict:
        result = {
            "overall": asdict(self.overall),
            "by_source": {source: asdict(group) for source, group in self.by_source.items()},
            "chinese": asdict(self.chinese),
            "by_language": {language: asdict(group) for language, group in self.by_language.items()},
            "unknown_ids": self.unknown_ids,
        }
        if include_pages:
            result["pages"] = [asdict(page) for page in self.pages]
        return result

    def format_table(self) -> str:
        rows = [
            ("overall", self.overall),
            *self.by_source.items(),
            ("chinese", self.chinese),
            *((f"lang:{language}", group) for language, group in self.by_language.items()),
        ]
        lines = [
            f"{'group':<18}{'pages':>7}{'missing':>9}{'P':>8}{'R':>8}{'F1':>8}"
            f"{'microP':>8}{'microR':>8}{'microAcc':>10}"
        ]
        for name, group in rows:
            line = (
                f"{name:<18}{group.pages:>7}{group.missing:>9}"
                f"{group.precision:>8.3f}{group.recall:>8.3f}{group.f1:>8.3f}"
            )
            if group.snippet_micro is not None:
                micro = group.snippet_micro
                line += f"{micro.precision:>8.3f}{micro.recall:>8.3f}{micro.accuracy:>10.3f}"
            lines.append(line)
        lines.append(
            "P/R: macro over pages (missing pages score 0); F1 of the macro P and R; micro*: snippet pages only"
        )
        if self.unknown_ids:
            lines.append(f"warning: {self.unknown_ids} extracted ids have no gold page")
        return "\n".join(lines)


def score_extraction(
    gold: list[GoldPage], extracted: Mapping[str, str | None], languages: Mapping[str, str] | None = None
) -> ExtractionReport:
    """Score extracted texts (page id -> text, ``None`` or absent when dropped) against gold.

    Figures: overall, per source, for Chinese pages (``is_chinese``) and, given ``languages`` (page
    id -> language of its gold text), per language. Precision and recall are per-page figures
    macro-averaged over every gold page of the group, missing pages scoring 0; F1 is the harmonic
    mean of the two averages. See the module docstring for the per-page rules.
    """
    scores = [score_page(page, extracted.get(page.id)) for page in gold]
    sources = sorted({score.source for score in scores})
    gold_ids = {page.id for page in gold}
    by_language: dict[str, list[PageScore]] = {}
    for score in scores:
        by_language.setdefault((languages or {}).get(score.id) or "unknown", []).append(score)
    return ExtractionReport(
        overall=_group_score(scores),
        by_source={source: _group_score([s for s in scores if s.source == source]) for source in sources},
        chinese=_group_score([score for score in scores if score.chinese]),
        unknown_ids=sum(page_id not in gold_ids for page_id in extracted),
        pages=scores,
        by_language={
            language: _group_score(group)
            for language, group in sorted(by_language.items(), key=lambda item: (-len(item[1]), item[0]))
        }
        if languages is not None
        else {},
    )


def gold_text(page: GoldPage) -> str:
    """What a page's gold says its main text is: the text, or the ``with`` snippets joined."""
    return page.text if page.kind == "full" else "\n".join(page.with_snippets)
