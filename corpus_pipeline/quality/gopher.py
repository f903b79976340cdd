"""Gopher quality and repetition signals (Rae et al. 2021, "Scaling Language Models", MassiveText).

Quality: word count, mean word length, symbol-to-word ratio, bullet and ellipsis line fractions,
share of words with a letter, stop words. Repetition: duplicate lines and paragraphs (by count and
by characters), the character fraction of the most frequent n-gram (n = 2..4) and of all duplicated
n-grams (n = 5..10). Only signals here; the keep rule (`rules.py`) compares them with thresholds.

Definitions, where the paper leaves a choice (datatrove's choice noted where it differs):
- A duplicate line/paragraph is one that repeats an earlier one; its characters count again each
  time. Line fractions are over non-empty lines; character fractions over len(text) (as datatrove).
- N-grams are over word units (`words.py`: words, or characters for Chinese and Japanese), and an
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
first n without a repeat.
"""

from __future__ import annotations

import numpy as np

from corpus_pipeline.quality.words import Segments, repeats

TOP_NGRAM_SIZES = (2, 3, 4)
DUP_NGRAM_SIZES = (5, 6, 7, 8, 9, 10)
# Lines starting with one of these are list items (datatrove checks "•" and "-" only).
BULLETS = ("•", "‣", "⁃", "◦", "▪", "▫", "●", "○", "■", "□", "►", "▶", "➢", "→", "·", "-", "*", "–")
ELLIPSES = ("...", "…")
_ROLL = np.uint64(1_000_003)  # multiplier of the rolling n-gram hash (odd, so no bits are lost)

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
        "gopher_stop_words": sum(map(stop_words.__contains__, words)) if stop_words is not None else None,
    }


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
    # round keeps just those start positions, so after n = 2 the arrays are small.
    positions = np.arange(count, dtype=np.int64)
    grams = ids
    for n in range(2, max(DUP_NGRAM_SIZES) + 1):
        positions = positions[positions + n <= count]
        grams = grams[: len(positions)] * _ROLL + ids[positions + n - 1]
        order = np.argsort(grams, kind="stable")  # equal n-grams together, earliest first
        sorted_grams = grams[order]
        repeat_in_sorted = sorted_grams[1:] == sorted_grams[:-1]
        if not repeat_in_sorted.any():
            break  # no repeated n-gram: none of any larger n either
        if n in TOP_NGRAM_SIZES:
            signals[f"gopher_top_{n}gram_char_frac"] = _top_fraction(
                positions[order], repeat_in_sorted, char_ends, n, total_chars
            )
        if n in DUP_NGRAM_SIZES:
            repeated_starts = positions[order[1:][repeat_in_sorted]]  # every occurrence after the first
            covered = np.zeros(count + 1, dtype=np.int32)  # +1 at a start, -1 past its end
            covered[repeated_starts] += 1  # the starts are distinct, so plain fancy indexing adds
            covered[repeated_starts + n] -= 1
            in_repeat = np.cumsum(covered[:count]) > 0
            signals[f"gopher_dup_{n}gram_char_frac"] = float(lengths[in_repeat].sum()) / total_chars
        in_run = np.zeros(len(grams), dtype=bool)  # the sorted slots whose n-gram occurs twice or more
        in_run[1:] = repeat_in_sorted
        in_run[:-1] |= repeat_in_sorted
        keep = np.sort(order[in_run])  # back to text order, so the next round's sort stays stable
        positions, grams = positions[keep], grams[keep]
    return signals


def _top_fraction(
    sorted_positions: np.ndarray, repeat_in_sorted: np.ndarray, char_ends: np.ndarray, n: int, total: int
) -> float:
    """count x characters of the most frequent n-gram (the longest among equally frequent ones)."""
    run_starts = np.flatnonzero(np.concatenate(([True], ~repeat_in_sorted)))
    run_counts = np.diff(np.append(run_starts, len(sorted_positions)))
    top = int(run_counts.max())
    first_positions = sorted_positions[run_starts[run_counts == top]]
    chars = int((char_ends[first_positions + n] - char_ends[first_positions]).max())
    return min(1.0, top * chars / total)
