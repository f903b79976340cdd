"""One hashed n-gram index over every evaluation set of a run: sorted 64-bit n-gram hashes, each with
the number of the item it comes from, in two numpy arrays (12 bytes an n-gram), and a bitmap of
their top bits that turns most of a document's n-grams away before the binary search.

The hashes are dedup's code-point shingle hashes (`dedup/shingle_hashes.py`) of the text as dedup
normalizes it, so a copy that differs in case, punctuation, line breaks or indentation hashes the
same. An item is cut into `word_ngram`-word n-grams, or `char_ngram`-character ones when it is
mostly Chinese, Japanese, Thai... (`dedup.shingles.uses_characters`); an item (or one of its fields)
shorter than one n-gram is one shingle of its own length, and documents are then also cut at it.

Built once per run, loaded once per process (`index_for`): the driver builds it when the stage is
created (a bad eval file fails in the first second) and saves it under `index_cache`, named by
everything that decides it; every executor process memory-maps those files on its first task (the
pages are shared between the processes of a machine), or builds and saves it where it cannot see
the driver's copy.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from corpus_pipeline.decontam.config import DecontaminationConfig
from corpus_pipeline.decontam.eval_sets import EvalSet, file_sha256, load_eval_set, set_file
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

    def __post_init__(self) -> None:
        # ~32 bitmap bits per n-gram (a power of two, at least 2^20): 1 in ~32 of a document's
        # n-grams that are not in the index passes it, the rest skip the binary search, which
        # was 2.9 of 5.9 s on the 1,431 pages against 372,014 n-grams without it.
        bits = max(20, int(np.ceil(np.log2(max(1, len(self.hashes)) * 32))))
        self._shift = np.uint64(64 - bits)
        top = (self.hashes >> self._shift).astype(np.int64)
        self._bitmap = np.zeros(1 << (bits - 3), dtype=np.uint8)
        np.bitwise_or.at(self._bitmap, top >> 3, (1 << (top & 7)).astype(np.uint8))

    @property
    def nbytes(self) -> int:
        return self.hashes.nbytes + self.items.nbytes + self.item_sets.nbytes + self._bitmap.nbytes

    def lookup(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(positions, items, shared): for every (hash, item) pair found, the position of the hash
        in `hashes`, the item's number, and whether other items hold that n-gram too."""
        top = (hashes >> self._shift).astype(np.int64)
        maybe = np.flatnonzero(self._bitmap[top >> 3] & (1 << (top & 7)).astype(np.uint8))
        if not len(maybe):
            return maybe, maybe, maybe.astype(bool)
        wanted = hashes[maybe]
        left = np.searchsorted(self.hashes, wanted, side="left")
        hit = self.hashes[np.minimum(left, len(self.hashes) - 1)] == wanted
        found, starts = maybe[hit], left[hit]
        if not len(found):
            return found, found, found.astype(bool)
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


_ARRAYS = ("hashes", "items", "item_sets")
_META = "index.json"


def save_index(index: NgramIndex, directory: Path) -> None:
    """Write the index as .npy arrays and a JSON of the rest, into a temporary sibling renamed into
    place: a reader never sees half an index."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    for name in _ARRAYS:
        np.save(tmp / f"{name}.npy", getattr(index, name))
    meta = {name: getattr(index, name) for name in ("set_names", "set_sizes", "item_ids", "word_widths", "char_widths")}
    meta.update(skipped=index.skipped, template_ngrams=index.template_ngrams)
    (tmp / _META).write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    try:
        os.rename(tmp, directory)
    except OSError:  # another process saved it first: theirs is the same index
        shutil.rmtree(tmp, ignore_errors=True)


def load_index(directory: Path) -> NgramIndex:
    meta = json.loads((directory / _META).read_text(encoding="utf-8"))
    arrays = {name: np.load(directory / f"{name}.npy", mmap_mode="r") for name in _ARRAYS}
    tuples = {name: tuple(meta[name]) for name in ("set_names", "set_sizes", "item_ids", "word_widths", "char_widths")}
    return NgramIndex(**tuples, **arrays, skipped=meta["skipped"], template_ngrams=meta["template_ngrams"])


@dataclass(frozen=True)
class SetFile:
    """An eval set as the stage's fingerprint and the index's name see it: its file and digest."""

    name: str
    path: str
    sha256: str


def index_key(config: DecontaminationConfig, files: tuple[SetFile, ...]) -> str:
    """What decides the index: the matching settings, and each set's reading settings and bytes."""
    matching = config.model_dump(include={"word_ngram", "char_ngram", "min_item_words", "min_item_chars"})
    matching["max_items_per_ngram"] = config.max_items_per_ngram
    reading = [s.model_dump(include={"name", "format", "fields", "id_field", "builtin"}) for s in config.eval_sets]
    payload = json.dumps([matching, reading, [f.sha256 for f in files]], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def cache_dir(config: DecontaminationConfig) -> Path:
    return Path(config.index_cache or Path(tempfile.gettempdir()) / "corpus_pipeline-decontam-index")


_PROCESS_INDEXES: dict[tuple, tuple[tuple[SetFile, ...], NgramIndex]] = {}


def index_for(config: DecontaminationConfig) -> tuple[tuple[SetFile, ...], NgramIndex]:
    """The sets' files and the index of `config`, loaded (or built) once per process: Spark reuses
    its Python workers across tasks, so each worker loads it on its first task only."""
    paths = [set_file(s) for s in config.eval_sets]
    # Hashing the files again per task would cost 0.1 s for 100,000 items: a file that keeps its
    # size and modification time is taken for the same.
    seen = (config.model_dump_json(), tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in paths))
    if seen not in _PROCESS_INDEXES:
        files = tuple(SetFile(s.name, str(p), file_sha256(p)) for s, p in zip(config.eval_sets, paths, strict=True))
        directory = cache_dir(config) / index_key(config, files)
        if not (directory / _META).exists():
            directory.parent.mkdir(parents=True, exist_ok=True)
            save_index(build_index([load_eval_set(s) for s in config.eval_sets], config), directory)
        _PROCESS_INDEXES[seen] = (files, load_index(directory))
    return _PROCESS_INDEXES[seen]
