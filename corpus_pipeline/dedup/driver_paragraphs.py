"""Paragraph removal on the driver (paragraph_job.py's steps), reading the text batch by batch: the
paragraph hashes of the candidates are counted in one pass over the input, the documents holding
frequent ones cleaned (and signed again, for the methods after this one) in a second, and cleaned a
third time when their bucket is written (`Cleaning.apply`). What the driver keeps between passes is
hashes and ids: each flagged document's repeated paragraph hashes."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.dedup.config import DedupConfig, ParagraphDedupConfig
from corpus_pipeline.dedup.paragraph_batches import REASON, cleaned_batch, paragraph_hash_batch, with_changes

# Input batches of first rows (a repeated id's later rows left out), read again on each call.
Batches = Callable[[], Iterator[pa.Table]]


def ids_in(table: pa.Table, ids: set[str] | pa.Array) -> pa.ChunkedArray:
    value_set = ids if isinstance(ids, pa.Array) else pa.array(sorted(ids), pa.string())
    return pc.is_in(table.column("id"), value_set=value_set)


@dataclass
class Cleaning:
    """The documents paragraph removal rewrites: id -> the hashes of its repeated paragraphs."""

    repeated: dict[str, list[int]]
    config: ParagraphDedupConfig

    @cached_property
    def flagged(self) -> pa.Array:
        """The ids of `repeated`, sorted once: `cleaned` runs for every batch and every bucket."""
        return pa.array(sorted(self.repeated), pa.string())

    def cleaned(self, table: pa.Table) -> pa.RecordBatch:
        """paragraph_batches.CLEANED_SCHEMA rows of the flagged documents among `table`'s rows."""
        flagged = table.select(["id", "text"]).filter(ids_in(table, self.flagged))
        values = pa.array([self.repeated[doc_id] for doc_id in flagged.column("id").to_pylist()], pa.list_(pa.int64()))
        flagged = flagged.append_column("repeated", values).combine_chunks()
        batch = flagged.to_batches()[0] if flagged.num_rows else pa.RecordBatch.from_pylist([], flagged.schema)
        return cleaned_batch(batch, self.config.min_documents, self.config.min_chars)

    def apply(self, table: pa.Table, first: list[bool]) -> pa.Table:
        """`table` with the cleaned text of its flagged first rows (not of those it rejects) and the
        count columns (null where a row is not flagged), as paragraph_job writes them."""
        changes = {row["id"]: row for row in self.cleaned(table).to_pylist()}
        return with_changes(table, changes, first)


def remove_repeated_paragraphs(
    batches: Batches, candidates: pa.Array, dedup: DedupConfig, carried: list[str], signed: Callable
) -> tuple[Cleaning, list[tuple], list[pa.Table]]:
    """As paragraph_job.remove_repeated_paragraphs among the ids `candidates`: (the cleaning, the
    (id, kept_id, reason, note) of the documents it empties, the signature rows of the cleaned texts
    that stay, tables from `signed(table, dedup, carried)`)."""
    hashes: dict[str, list[int]] = defaultdict(list)
    for table in batches():
        current = table.select(["id", "text"]).filter(ids_in(table, candidates))
        for batch in current.to_batches():
            found = paragraph_hash_batch(batch)
            for doc_id, value in zip(
                found.column("id").to_pylist(), found.column("paragraph_hash").to_pylist(), strict=True
            ):
                hashes[doc_id].append(value)
    counts = Counter(value for values in hashes.values() for value in values)
    frequent = {value for value, count in counts.items() if count >= dedup.paragraph.min_documents}
    repeated = {doc_id: sorted(v for v in values if v in frequent) for doc_id, values in hashes.items()}
    cleaning = Cleaning({doc_id: values for doc_id, values in repeated.items() if values}, dedup.paragraph)
    emptied, resigned = [], []
    for table in batches():
        rows = cleaning.cleaned(table.filter(ids_in(table, candidates)))
        emptied += [
            (doc_id, None, REASON, detail)
            for doc_id, detail in zip(
                rows.column("id").to_pylist(), rows.column("reject_detail").to_pylist(), strict=True
            )
            if detail is not None
        ]
        kept = pa.Table.from_batches([rows]).filter(pc.is_null(rows.column("reject_detail")))
        kept = kept.filter(pc.is_valid(kept.column("cleaned_text")))
        if kept.num_rows:
            originals = table.filter(ids_in(table, set(kept.column("id").to_pylist())))
            texts = dict(zip(kept.column("id").to_pylist(), kept.column("cleaned_text").to_pylist(), strict=True))
            new_text = pa.array([texts[doc_id] for doc_id in originals.column("id").to_pylist()], pa.string())
            originals = originals.set_column(originals.schema.get_field_index("text"), "text", new_text)
            resigned.append(signed(originals, dedup, carried))
    return cleaning, emptied, resigned
