"""Gopher quality and repetition signals (Rae et al. 2021, "Scaling Language Models", MassiveText).

Quality: word count, mean word length, symbol-to-word ratio, bullet and ellipsis line fractions,
share of words with a letter, distinct stop words. Repetition: duplicate lines and paragraphs (by count and
by characters), the character fraction of the most frequent n-gram (n = 2..4) and of all duplicated
n-grams (n = 5..10). Only signals here; the keep rule (`rules.py`) compares them with thresholds.

Definitions, where the paper leaves a choice (datatrove's choice noted where it differs):
- A duplicate line/paragraph is one that repeats an earlier one; its characters count again each
  time. Line fractions are over non-empty lines; character fractions over len(text) (as datatrove).
- N-grams are over word units (`word_units.py`: words, or characters for Chinese and Japanese), and an
  n-gram's characters are its words' characters (spaces not counted; datatrove counts them for
  n = 2..4 and not for 5..10). Denominator: all word characters, so fractions do not move with
  whitespace.
- Top n-gram (n = 2..4): count x characters of the most frequent n-gram, 0 unless it occurs at
  least twice (an n-gram seen once is not repetition; datatrove counts it, which flags any short
  text), capped at 1 (overlapping repeats like "a a a a" can exceed the text).
- Duplicated n-grams (n = 5..10): the characters of words covered by an n-gram occurrence that
  repeats an earlier occurrence, each word counted once however many such n-grams cover it, as the
  paper asks ("not counting characters in overlapping n-grams more than once").

Speed: n-grams are never built as strings. Each word becomes its str hash (salted per process:
the signals do not depend on the salt unless two different n-grams collide in 64 bits),
n-gram hashes are rolled from (n-1)-gram hashes with numpy in uint64, and a stable argsort groups
equal n-grams with the first occurrence first. An n-gram can only repeat where its (n-1)-gram
prefix repeats, so each round carries only those positions forward, and the loop stops at the
first n without a repeat. The sizes 5..10 are done together, one row of 2-D arrays each
(`_dup_fractions`).
"""

from __future__ import annotations

import numpy as np

from corpus_pipeline.word_units import Segments, repeats

TOP_NGRAM_SIZES = (2, 3, 4)
DUP_NGRAM_SIZES = (5, 6, 7, 8, 9, 10)
# Lines starting with one of these are list items (datatrove checks "•" and "-" only).
BULLETS = ("•", "‣", "⁃", "◦", "▪", "▫", "●", "○", "■", "□", "►", "▶", "➢", "→", "·", "-", "*", "–")
ELLIPSES = ("...", "…")
_ROLL = np.uint64(1_000_003)  # multiplier of the rolling n-gram hash (odd, so no bits are lost)
_TRUE = np.ones(1, dtype=bool)
# `_dup_fractions` rolls the 4-grams on by one word per size (the dup sizes follow the top sizes):
# row k of its arrays is the n-gram size _DUP_ROWS[k], k + 1 words past the 4-gram, and _ROLL is odd,
# so it has an inverse modulo 2^64.
_DUP_ROWS = np.array(DUP_NGRAM_SIZES)
_STEPS = [n - max(TOP_NGRAM_SIZES) for n in DUP_NGRAM_SIZES]
_POWERS = np.array([pow(int(_ROLL), k, 1 << 64) for k in _STEPS], dtype=np.uint64)[:, None]
_INVERSE_POWERS = np.array([pow(int(_ROLL), -k, 1 << 64) for k in _STEPS], dtype=np.uint64)[:, None]
if _STEPS != list(range(1, len(DUP_NGRAM_SIZES) + 1)):
    raise ImportError("DUP_NGRAM_SIZES must continue TOP_NGRAM_SIZES one size at a time")

QUALITY_SIGNALS = (
    "gopher_word_count",
    "gopher_mean_word_length",
    "gopher_symbol_word_ratio",
    "gopher_bullet_lines_frac",
    "gopher_ellipsis_lines_frac",
    "gopher_alpha_words_frac",
    "gopher_stop_words",
)
REPETITION_SIGNALS = (
    "gopher_dup_line_frac",
    "gopher_dup_line_char_frac",
    "gopher_dup_para_frac",
    "gopher_dup_para_char_frac",
    *(f"gopher_top_{n}gram_char_frac" for n in TOP_NGRAM_SIZES),
    *(f"gopher_dup_{n}gram_char_frac" for n in DUP_NGRAM_SIZES),
)
INT_SIGNALS = frozenset({"gopher_word_count", "gopher_stop_words"})


def quality_signals(seg: Segments, stop_words: frozenset[str] | None) -> dict[str, float | int | None]:
    words, lines = seg.words, seg.lines
    n_words, n_lines = len(words), len(lines)
    word_chars = sum(map(len, words))
    # No-letter words are the digit-only ones: the word regex admits letters, digits and "_" only.
    numeric = sum(map(str.isdigit, words))
    tokens = n_words + seg.symbol_tokens
    hashes = seg.text.count("#")
    ellipses = seg.text.count("...") + seg.text.count("…")
    return {
        "gopher_word_count": n_words,
        "gopher_mean_word_length": word_chars / n_words if n_words else 0.0,
        # The paper's rule is on either ratio (> 0.1 for "#" or for the ellipsis): their maximum.
        "gopher_symbol_word_ratio": max(hashes, ellipses) / n_words if n_words else 0.0,
        "gopher_bullet_lines_frac": sum(line.startswith(BULLETS) for line in lines) / n_lines if n_lines else 0.0,
        "gopher_ellipsis_lines_frac": sum(line.endswith(ELLIPSES) for line in lines) / n_lines if n_lines else 0.0,
        "gopher_alpha_words_frac": (n_words - numeric) / tokens if tokens else 0.0,
        "gopher_stop_words": distinct_stop_words(words, stop_words) if stop_words is not None else None,
    }


def distinct_stop_words(words: list[str], stop_words: frozenset[str]) -> int:
    """How many different stop words the text holds, as Gopher asks ("at least two of the
    following English words") and datatrove counts: "The, the, the" holds one. `stop_words`
    holds each word's capitalised and upper-case forms too (words.stop_word_set), folded here."""
    return len({word.lower() for word in stop_words.intersection(words)})  # the set at C speed


def repetition_signals(seg: Segments) -> dict[str, float]:
    text_chars = len(seg.text)
    paragraphs = seg.paragraphs
    para_dups, para_dup_chars = repeats(paragraphs)
    signals = {
        "gopher_dup_line_frac": seg.dup_lines / len(seg.lines) if seg.lines else 0.0,
        "gopher_dup_line_char_frac": seg.dup_line_chars / text_chars if text_chars else 0.0,
        "gopher_dup_para_frac": para_dups / len(paragraphs) if paragraphs else 0.0,
        "gopher_dup_para_char_frac": para_dup_chars / text_chars if text_chars else 0.0,
    }
    signals.update(ngram_signals(seg.words))
    return signals


def ngram_signals(words: list[str]) -> dict[str, float]:
    signals = dict.fromkeys((f"gopher_top_{n}gram_char_frac" for n in TOP_NGRAM_SIZES), 0.0)
    signals.update(dict.fromkeys((f"gopher_dup_{n}gram_char_frac" for n in DUP_NGRAM_SIZES), 0.0))
    count = len(words)
    if count < 2:
        return signals
    ids = np.fromiter(map(hash, words), dtype=np.int64, count=count).view(np.uint64)
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=count)
    total_chars = int(lengths.sum())
    if total_chars == 0:
        return signals
    char_ends = np.concatenate(([0], np.cumsum(lengths)))  # chars of words[i:j] = ends[j] - ends[i]
    # Only n-grams whose (n-1)-gram prefix occurs more than once can occur more than once: each
    # round keeps just those start positions, so after n = 2 the arrays are small. Each op here is
    # a numpy call of ~1 us whatever the size, so a round uses as few as it can.
    positions = np.arange(count, dtype=np.int64)
    grams = ids
    for n in TOP_NGRAM_SIZES:
        kept = np.searchsorted(positions, count - n, side="right")  # positions ascend
        positions = positions[:kept]
        grams = grams[:kept] * _ROLL + ids[positions + (n - 1)]
        order = np.argsort(grams, kind="stable")  # equal n-grams together, earliest first
        sorted_grams = grams[order]
        repeat_in_sorted = sorted_grams[1:] == sorted_grams[:-1]
        if not repeat_in_sorted.any():
            return signals  # no repeated n-gram: none of any larger n either
        bounds = np.flatnonzero(np.concatenate((_TRUE, ~repeat_in_sorted, _TRUE)))  # where runs start
        run_counts = bounds[1:] - bounds[:-1]
        # count x characters of the most frequent n-gram (the longest of equally frequent ones),
        # capped at 1 (overlapping repeats like "a a a a" can exceed the text).
        top = int(run_counts.max())
        firsts = positions[order[bounds[:-1][run_counts == top]]]
        chars = int((char_ends[firsts + n] - char_ends[firsts]).max())
        signals[f"gopher_top_{n}gram_char_frac"] = min(1.0, top * chars / total_chars)
        keep = np.sort(order[np.repeat(run_counts > 1, run_counts)])  # n-grams seen twice or more
        positions, grams = positions[keep], grams[keep]  # in text order, so the next sort is stable
    signals.update(_dup_fractions(positions, grams, ids, char_ends))
    return signals


def _dup_fractions(positions: np.ndarray, grams: np.ndarray, ids: np.ndarray, char_ends: np.ndarray) -> dict:
    """gopher_dup_{n}gram_char_frac for every n in DUP_NGRAM_SIZES at once, one row of 2-D arrays
    per n, from the starts whose 4-gram repeats (`positions`, ascending; `grams`, their hashes).

    What n = 5..10 rounds like those above would give (each n-gram compared with every other from
    these starts, not only with those whose (n-1)-gram repeats: two n-grams with different
    (n-1)-grams differ), in ~25 numpy calls instead of ~20 per n. 954 of the 2,432 8-line People's
    Daily documents have repeats up to n = 10; valgrind counts 12% fewer instructions for their
    n-gram signals than with a round per n, 6% for the 1,416 real pages."""
    count, total_chars = len(ids), int(char_ends[-1])
    sizes = _DUP_ROWS[:, None]
    # Row k holds the (5 + k)-grams: the 4-gram rolled on by words 5..5 + k, in one cumulative sum
    # (g * R + w5) * R + w6 ... = (g + w5 / R + w6 / R^2 + ...) * R^(k + 1), in uint64 arithmetic.
    beyond = positions + sizes > count  # n-grams that would run past the text's end do not exist
    next_words = ids[np.minimum(positions + sizes - 1, count - 1)]
    rows = (grams + np.cumsum(next_words * _INVERSE_POWERS, axis=0)) * _POWERS
    order = np.lexsort((rows, beyond), axis=-1)  # per row: real n-grams, equal ones together, earliest first
    sorted_rows = np.take_along_axis(rows, order, axis=1)
    repeat = (sorted_rows[:, 1:] == sorted_rows[:, :-1]) & ~np.take_along_axis(beyond, order[:, 1:], axis=1)
    later = np.zeros(rows.shape, dtype=bool)  # in text order: an occurrence after the n-gram's first
    np.put_along_axis(later, order[:, 1:], repeat, axis=1)
    # The words covered by those occurrences: spans of n words, so with the starts in text order each
    # adds what lies past the previous one's end.
    last = np.maximum.accumulate(np.where(later, positions, -count), axis=1)
    reach = np.maximum(positions, np.concatenate((np.full((len(rows), 1), -count), last[:, :-1]), axis=1) + sizes)
    ends = np.minimum(positions + sizes, count)
    covered = np.where(later, char_ends[ends] - char_ends[np.minimum(reach, ends)], 0).sum(axis=1)
    # No repeated n-gram means none of any larger n either, as the rounds above stop.
    repeats_up_to = np.logical_and.accumulate(later.any(axis=1))
    return {
        f"gopher_dup_{n}gram_char_frac": float(chars) / total_chars if alive else 0.0
        for n, chars, alive in zip(DUP_NGRAM_SIZES, covered.tolist(), repeats_up_to.tolist(), strict=True)
    }
