"""The dedup benchmarks' input: N documents made from the 1,432 real pages of web_docs.jsonl, mostly
distinct, one in ten a labelled near-duplicate, produced one at a time so 1,000,000 of them never
sit in memory together.

- base documents: the real pages first, as they are (their own 4 exact copies included, see
  natural_pairs.json), then "mosaics": the real pages' lines cut into units of <= 30 words
  (<= 300 characters for unspaced scripts), the unique units shuffled, and each mosaic the next run
  of units up to a word count drawn from the real pages' (at least 50 words). Every text is real
  web text and lengths follow the real pages, but two mosaics share almost no 5-gram: they are
  not near-duplicates;
- planted copies, PLANTED_SHARE of all documents, interleaved with the base ones from the start (so
  even a few hundred documents hold some): `plant.edited_copy` of a base document drawn from the
  last SOURCE_WINDOW ones (2-15% of the words replaced, inserted or deleted, paragraphs sometimes
  reordered, a boilerplate line sometimes added), the edits `eval dedup --plant` makes; each copy
  is labelled with its source's id.

The real pages keep their ids; every generated document is `gen-<position>`, copy or mosaic alike,
so an id says nothing about being a copy.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline import __version__
from corpus_pipeline.dedup import plant
from corpus_pipeline.dedup.plant import edited_copy
from corpus_pipeline.dedup.shingles import normalize_for_hashing, uses_characters
from corpus_pipeline.document import DOCUMENT_SCHEMA, empty_document
from corpus_pipeline.engine.exec.task_plan import part_name
from corpus_pipeline.engine.store.stage_dir import KEPT_HERE, SUCCESS

WEB_DOCS = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "dedup" / "web_docs.jsonl"
PLANTED_SHARE = 0.1
# Copies are made of recent base documents only, so the generator holds 5,000 texts (~27 MB), not N.
SOURCE_WINDOW = 5_000
MAX_UNIT_WORDS, MAX_UNIT_CHARS, MIN_MOSAIC_WORDS = 30, 300, 50
# A mosaic starts a new paragraph after a unit with this chance (real pages: ~3 units a paragraph).
NEW_PARAGRAPH = 0.3
# Replacement words and characters of the edits: a seeded sample of the real pages' vocabulary.
EDIT_POOL = 4_096
SCRIPT_SAMPLE = 1_000
# Rows per Parquet write when streaming to disk: ~25 MB of text.
WRITE_CHUNK = 5_000


@dataclass(frozen=True)
class Generated:
    doc: dict  # id, text (and url for the real pages)
    source_id: str | None  # the base document a planted copy was made from


def _units(line: str) -> Iterator[str]:
    words: list[str] = []
    length = 0
    for word in line.split():
        while len(word) > MAX_UNIT_CHARS:  # unspaced scripts: a "word" can be a whole paragraph
            if words:
                yield " ".join(words)
                words, length = [], 0
            yield word[:MAX_UNIT_CHARS]
            word = word[MAX_UNIT_CHARS:]
        if words and (len(words) >= MAX_UNIT_WORDS or length + len(word) > MAX_UNIT_CHARS):
            yield " ".join(words)
            words, length = [], 0
        words.append(word)
        length += len(word) + 1
    if words:
        yield " ".join(words)


class DedupCorpus:
    """`documents(count)` yields the same documents, in the same order, for the same seed."""

    def __init__(self, seed: int = 0, source: Path = WEB_DOCS, planted_share: float = PLANTED_SHARE):
        with source.open(encoding="utf-8") as lines:
            self.real = [json.loads(line) for line in lines]
        # dict.fromkeys: unique units in first-seen order, so repeated boilerplate lines cannot
        # make two mosaics near-duplicates of each other.
        self.units = list(
            dict.fromkeys(u for doc in self.real for line in doc["text"].split("\n") for u in _units(line))
        )
        self.lengths = [max(MIN_MOSAIC_WORDS, len(doc["text"].split())) for doc in self.real]
        words = sorted({w for doc in self.real for w in doc["text"].split()})
        characters = sorted({c for doc in self.real for c in doc["text"] if not c.isspace()})
        sample = random.Random(seed)
        self.words = sample.sample(words, min(EDIT_POOL, len(words)))
        self.characters = sample.sample(characters, min(EDIT_POOL, len(characters)))
        self.seed = seed
        self.planted_share = planted_share

    def identity(self, count: int) -> str:
        """Their _SUCCESS fingerprint: what the documents depend on (this generator's code and the
        edits' code included, so a changed generator never reuses old inputs)."""
        digest = hashlib.sha256(
            json.dumps([__version__, count, self.seed, len(self.real), self.planted_share]).encode()
        )
        for code in (Path(__file__), Path(plant.__file__)):
            digest.update(code.read_bytes())
        return digest.hexdigest()

    def documents(self, count: int) -> Iterator[Generated]:
        rng = random.Random(self.seed)
        recent: deque[dict] = deque(maxlen=SOURCE_WINDOW)
        bases = self._bases(rng)
        for position in range(count):
            doc_id = f"gen-{position:07d}"
            if recent and rng.random() < self.planted_share:
                source = rng.choice(recent)
                yield Generated({"id": doc_id, "text": self._copy(source["text"], rng)}, source["id"])
            else:
                doc = {"id": doc_id, **next(bases)}
                recent.append(doc)
                yield Generated(doc, None)

    def _bases(self, rng: random.Random) -> Iterator[dict]:
        """The real documents (with their own ids), then mosaics."""
        for doc in self.real:
            yield {"id": doc["id"], "text": doc["text"], "url": doc.get("url")}
        for text in self._mosaics(rng):
            yield {"text": text}

    def _copy(self, text: str, rng: random.Random) -> str:
        # The script is judged on the first SCRIPT_SAMPLE characters: normalizing a whole page costs
        # ~15 ms, more than the edits.
        by_characters = uses_characters(None, normalize_for_hashing(text[:SCRIPT_SAMPLE]))
        return edited_copy(text, by_characters, self.characters if by_characters else self.words, rng)

    def _mosaics(self, rng: random.Random) -> Iterator[str]:
        pool: list[str] = []
        while True:
            target, words, paragraphs, paragraph = rng.choice(self.lengths), 0, [], []
            while words < target:
                if not pool:  # a new epoch: every unit once more, in a new order
                    pool = self.units[:]
                    rng.shuffle(pool)
                unit = pool.pop()
                paragraph.append(unit)
                words += len(unit.split())
                if rng.random() < NEW_PARAGRAPH:
                    paragraphs.append(" ".join(paragraph))
                    paragraph = []
            if paragraph:
                paragraphs.append(" ".join(paragraph))
            yield "\n".join(paragraphs)


def write_stage(generated: Iterator[Generated], directory: Path, parts: int, identity: str) -> int:
    """Documents -> `part-*.parquet` (round-robin, WRITE_CHUNK rows at a time) + `_SUCCESS`, the
    layout the dedup stage reads; returns how many documents were written."""
    directory.mkdir(parents=True, exist_ok=True)
    writers = [pq.ParquetWriter(directory / f"{part_name(p)}.parquet", DOCUMENT_SCHEMA) for p in range(parts)]
    buffers: list[list[dict]] = [[] for _ in range(parts)]
    written = 0
    try:
        for index, item in enumerate(generated):
            buffer = buffers[index % parts]
            buffer.append(empty_document(**item.doc))
            if len(buffer) * parts >= WRITE_CHUNK:
                writers[index % parts].write_table(pa.Table.from_pylist(buffer, schema=DOCUMENT_SCHEMA))
                buffer.clear()
            written += 1
        for writer, buffer in zip(writers, buffers, strict=True):
            if buffer:
                writer.write_table(pa.Table.from_pylist(buffer, schema=DOCUMENT_SCHEMA))
    finally:
        for writer in writers:
            writer.close()
    # Streamed, not through publish_rows (which holds every row in memory); the marker says, as the
    # engine's does, that the kept documents are these parts.
    success = {"stage": "bench-dedup-input", "fingerprint": identity, "version": __version__, "kept": KEPT_HERE}
    (directory / SUCCESS).write_text(json.dumps(success) + "\n", encoding="utf-8")
    return written
