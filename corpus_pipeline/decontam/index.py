"""One hashed n-gram index over every evaluation set of a run: sorted 64-bit n-gram hashes, each with
the number of the item it comes from, in two numpy arrays (12 bytes an n-gram).

The hashes are dedup's code-point shingle hashes (`dedup/shingle_hashes.py`) of the text as dedup
normalizes it, so a copy that differs in case, punctuation, line breaks or indentation hashes the
same. An item is cut into `word_ngram`-word n-grams, or `char_ngram`-character ones when it is
mostly Chinese, Japanese, Thai... (`dedup.shingles.uses_characters`); an item shorter than one
n-gram is one shingle of its own length, and documents are then also cut at that length.

Built once per process (`index_for`), lazily: the driver builds it when the stage is created (a bad
eval file fails in the first second), and each executor process once, on its first task.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from corpus_pipeline.config.decontamination import DecontaminationConfig
from corpus_pipeline.decontam.eval_sets import EvalSet, load_eval_set
from corpus_pipeline.dedup.shingle_hashes import shingle_spans
from corpus_pipeline.dedup.shingles import normalize_for_hashing, uses_characters


@dataclass
class NgramIndex:
    set_names: tuple[str, ...]
    set_sizes: tuple[int, ...]  # items of each set (skipped ones included)
    item_ids: tuple[str, ...]  # by item number
    item_sets: np.ndarray  # uint16, by item number: its set's number
    hashes: np.ndarray  # uint64, sorted
    items: np.ndarray  # uint32, the item number of each hash
    word_widths: tuple[int, ...]  # n-gram lengths documents are cut at, in words
    char_widths: tuple[int, ...]  # and in characters
    skipped: dict[str, int] = field(default_factory=dict)  # items under the minimum length, per set
    template_ngrams: int = 0  # n-grams left out: shared by more than max_items_per_ngram items

    @property
    def nbytes(self) -> int:
        return self.hashes.nbytes + self.items.nbytes + self.item_sets.nbytes

    def lookup(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positions, items, shared): for every (hash, item) pair found, the position of the hash
        in `hashes`, the item's number, and whether other items hold that n-gram too."""
        left = np.searchsorted(self.hashes, hashes, side="left")
        found = np.flatnonzero(self.hashes[np.minimum(left, len(self.hashes) - 1)] == hashes)
        if not len(found):
            return found, found, found.astype(bool)
        starts = left[found]
        counts = np.searchsorted(self.hashes, hashes[found], side="right") - starts
        positions = np.repeat(found, counts)
        # entry k of a run of `c` equal hashes starting at `s`: s + k
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        return positions, self.items[np.repeat(starts, counts) + offsets], np.repeat(counts > 1, counts)


def build_index(sets: list[EvalSet], config: DecontaminationConfig) -> NgramIndex:
    hash_parts, item_parts, item_sets, item_ids = [], [], [], []
    word_widths: set[int] = set()
    char_widths: set[int] = set()
    skipped: dict[str, int] = {}
    for set_number, eval_set in enumerate(sets):
        for item in eval_set.items:
            shingled = [_shingling(item.text, config)]
            if len(item.fields) > 1:  # a field shorter than one n-gram is matched whole too
                shingled += [s for s in map(lambda f: _shingling(f, config), item.fields) if s[2] < s[3]]
            if shingled[0][2] < min(shingled[0][3], shingled[0][4]):
                skipped[eval_set.name] = skipped.get(eval_set.name, 0) + 1
                continue
            hashes = []
            for normalized, by_characters, units, size, minimum in shingled:
                if units < min(minimum, size):
                    continue
                width = min(size, units)
                (char_widths if by_characters else word_widths).add(width)
                hashes.append(_worded_hashes(normalized, by_characters, width))
            hashes = np.unique(np.concatenate(hashes))
            hash_parts.append(hashes)
            item_parts.append(np.full(len(hashes), len(item_ids), dtype=np.uint32))
            item_sets.append(set_number)
            item_ids.append(item.id)
    hashes = np.concatenate(hash_parts) if hash_parts else np.empty(0, dtype=np.uint64)
    items = np.concatenate(item_parts) if item_parts else np.empty(0, dtype=np.uint32)
    order = np.argsort(hashes, kind="stable")
    hashes, items = hashes[order], items[order]
    _, counts = np.unique(hashes, return_counts=True)
    template = np.repeat(counts > config.max_items_per_ngram, counts)
    return NgramIndex(
        set_names=tuple(s.name for s in sets),
        set_sizes=tuple(len(s.items) for s in sets),
        item_ids=tuple(item_ids),
        item_sets=np.array(item_sets, dtype=np.uint16),
        hashes=hashes[~template],
        items=items[~template],
        word_widths=tuple(sorted(word_widths)),
        char_widths=tuple(sorted(char_widths)),
        skipped=skipped,
        template_ngrams=int((counts > config.max_items_per_ngram).sum()),
    )


def _shingling(text: str, config: DecontaminationConfig) -> tuple[str, bool, int, int, int]:
    """(normalized text, by characters, its length in units, the n-gram size, the minimum length)."""
    normalized = normalize_for_hashing(text)
    if uses_characters(None, normalized):
        return normalized, True, len(normalized.replace(" ", "")), config.char_ngram, config.min_item_chars
    return normalized, False, len(normalized.split()), config.word_ngram, config.min_item_words


def _worded_hashes(normalized: str, by_characters: bool, width: int) -> np.ndarray:
    """The item's distinct n-gram hashes, less the n-grams made of digits only: "1 2 3 4 5 6 7 8 9"
    of a HumanEval grid is in every web page with a numbered table."""
    hashes, starts, ends = shingle_spans(normalized, by_characters, width, width)
    codes = np.frombuffer(normalized.encode("utf-32-le"), dtype=np.uint32)
    digit_or_space = ((codes >= 48) & (codes <= 57)) | ((codes >= 0xFF10) & (codes <= 0xFF19)) | (codes == 32)
    letters = np.concatenate(([0], np.cumsum(~digit_or_space)))
    return np.unique(hashes[letters[ends] > letters[starts]])


_PROCESS_INDEXES: dict[str, tuple[tuple[EvalSet, ...], NgramIndex]] = {}


def index_for(config: DecontaminationConfig) -> tuple[tuple[EvalSet, ...], NgramIndex]:
    """The sets and the index of `config`, built once per process (Spark reuses its Python workers
    across tasks, so each worker builds it on its first task only)."""
    key = config.model_dump_json()
    if key not in _PROCESS_INDEXES:
        sets = tuple(load_eval_set(set_config) for set_config in config.eval_sets)
        _PROCESS_INDEXES[key] = (sets, build_index(list(sets), config))
    return _PROCESS_INDEXES[key]
