"""Pre-tokenization for English and Chinese: where BPE may never merge across.

One regex (applied by `tokenizers.pre_tokenizers.Split`), then ByteLevel without its own regex. It is
the GPT-4 (cl100k) pattern with two changes:
- digits are single pieces (as Llama and DeepSeek do), so numbers are spelled digit by digit and
  arithmetic is not learnt from whatever 3-digit groups the corpus happened to hold;
- CJK runs (Han, kana, Hangul) are pieces of their own: never merged with adjacent Latin letters
  ("中文abc" -> "中文", "abc") and never given a leading punctuation mark ("，中国" -> "，", "中国"),
  so Chinese tokens stay words and phrases, not phrase+punctuation fragments.
Effect, measured by benchmarks/bench_tokenize_pretok.py (32k vocabulary trained on 80% of
shared/data/text, tokens per character on the held-out 20%):
    rule          English   Chinese   vocabulary entries gluing CJK to punctuation or Latin
    split_cjk     0.2562    0.6374        0
    without       0.2570    0.6070    2,488 (7.8% of the vocabulary)
English is unchanged; Chinese costs 5% more tokens, the price of not spending 7.8% of the
vocabulary on "，中国"-style duplicates of words the model must then learn once per punctuation mark.

Because BPE never merges across pieces, a long text cut where the regex cuts anyway encodes to the
same ids piece by piece as whole: `split_long_text` uses that to bound the encoder's memory.
"""

from __future__ import annotations

from collections.abc import Iterator

_CJK = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}"
_CONTRACTIONS = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)"
_TAIL = r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"

# CJK runs first (an optional space before them), then runs of the other letters.
PATTERN_SPLIT_CJK = _CONTRACTIONS + rf"| ?[{_CJK}]+" + rf"|[^\r\n\p{{L}}\p{{N}}]?[\p{{L}}&&[^{_CJK}]]+" + _TAIL
# The same without the CJK rule: any letters, CJK included, form one run (cl100k's behaviour).
PATTERN_PLAIN = _CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+" + _TAIL


def pre_tokenizer(split_cjk: bool = True):
    from tokenizers import Regex, pre_tokenizers

    pattern = PATTERN_SPLIT_CJK if split_cjk else PATTERN_PLAIN
    return pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(pattern), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )


def is_piece_boundary(text: str, position: int) -> bool:
    """True where both patterns always end one piece and start the next: after a letter that is
    followed by a non-letter (no alternative continues a letter run into a non-letter, and none
    looks behind), or after a line break followed by a non-space (a newline run never absorbs it).
    Scanning from such a point finds exactly the pieces the whole text would have there."""
    before, after = text[position - 1], text[position]
    if before.isalpha():
        return not after.isalpha()
    return before in "\r\n" and not after.isspace()


def split_long_text(text: str, max_chars: int) -> Iterator[tuple[str, bool]]:
    """Cut `text` into pieces of at most ~max_chars at piece boundaries; yields (piece, hard_cut).

    The boundary is looked for in the second half of each window, last first; hard_cut is True when
    there was none (a 100,000-character run of letters without a space), where the cut changes the
    ids around it - that text is not language anyway, and the count is reported.
    """
    start = 0
    while len(text) - start > max_chars:
        end = start + max_chars
        cut = next((p for p in range(end, start + max_chars // 2, -1) if is_piece_boundary(text, p)), None)
        yield text[start : cut or end], cut is None
        start = cut or end
    yield text[start:], False
