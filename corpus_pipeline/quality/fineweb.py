"""FineWeb signals (Penedo et al. 2024; datatrove's FineWebQualityFilter): the share of lines ending
in terminal punctuation, the share of short lines, the character share of duplicated lines, and the
newline-to-word ratio ("list ratio").

Short means at most `short_line_chars` characters: 30 in FineWeb, set per language in the config
because a 30-character Chinese line holds as much as a 60-90 character English one.
"""

from __future__ import annotations

from corpus_pipeline.word_units import Segments, ends_sentence

# Sentence terminators across scripts (datatrove uses the Unicode sentence-terminal set; these are
# the ones that end lines in practice). `ends_sentence` looks past closing quotes and brackets,
# which datatrove does not: Chinese news lines often end in 。” or in a bracketed credit after 。.
TERMINAL_PUNCTUATION = (
    ".", "!", "?", "…", "。", "！", "？", "．", "｡", "؟", "۔", "।", "॥", "։", "።", "፧", "‼", "‽", "⁇", "⁈", "⁉",
)  # fmt: skip

SIGNALS = (
    "fineweb_line_punct_ratio",
    "fineweb_short_line_ratio",
    "fineweb_dup_line_char_ratio",
    "fineweb_list_ratio",
)


def signals(seg: Segments, short_line_chars: int) -> dict[str, float]:
    lines, text = seg.lines, seg.text
    n_lines = len(lines)
    newlines = text.count("\n")
    chars_without_newlines = len(text) - newlines
    return {
        "fineweb_line_punct_ratio": sum(ends_sentence(line, TERMINAL_PUNCTUATION) for line in lines) / n_lines
        if n_lines
        else 0.0,
        "fineweb_short_line_ratio": sum(len(line) <= short_line_chars for line in lines) / n_lines if n_lines else 0.0,
        "fineweb_dup_line_char_ratio": seg.dup_line_chars / chars_without_newlines if chars_without_newlines else 0.0,
        "fineweb_list_ratio": newlines / len(seg.words) if seg.words else 0.0,
    }
