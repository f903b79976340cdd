"""Never touch what corpus_pipeline did not write (schemas/stage_dir.md, "Whose output").

An output a stage is about to write is ours when it is missing, empty, or a stage directory whose
`_SUCCESS` manifest names every file there (besides the marker, the lock, and the commit area
`_work/` of a store, whose records and intents name the attempts' objects). Anything else, a
folder with a user's files, a file, a device, a prefix holding objects none of our manifests or
records name, is refused before anything is written, naming one thing found there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from corpus_pipeline.engine.store.layout import STEPS_DIR, SUCCESS, WORK, WORK_OWNER
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.errors import OutputRefusedError
from corpus_pipeline.storage.locations import absolute
from corpus_pipeline.storage.locks import LEASE_NAME, output_lock, refuse_if_held


class OutputOverlapsInputError(OutputRefusedError):
    """An --output that equals, contains or lies inside an --input: writing it would destroy the input."""


class ForeignOutputError(OutputRefusedError):
    """An --output that holds what corpus_pipeline did not write."""


def read_marker(output: str, storage: Storage) -> dict | None:
    """The stage's `_SUCCESS` manifest, or None when there is none or it cannot be read (a marker
    cut short by a crash means "not finished", never a crash of the next run)."""
    try:
        marker = json.loads(storage.read_bytes(f"{output.rstrip('/')}/{SUCCESS}"))
    except (FileNotFoundError, ValueError):
        return None
    return marker if isinstance(marker, dict) and "fingerprint" in marker else None


def named_by_work_area(base: str, relative: list[str], storage: Storage) -> set[str]:
    """The objects the commit records and attempt intents under `_work/` name (store outputs). A
    step's output in the commit area (`_work/<fingerprint16>/_steps/<name>/`, engine/sub_steps.py)
    is a stage directory of its own, whose records name keys under it: never read as ours here."""
    records = [
        name
        for name in relative
        if name.startswith(f"{WORK}/") and name.endswith(".json") and name.split("/")[2:3] != [STEPS_DIR]
    ]
    named: set[str] = set()
    for data in storage.read_many([base + name for name in records]):
        try:
            record = json.loads(data)
        except ValueError:
            continue
        for per_stage in record.get("files", {}).values():
            named.update(per_stage.values())
        named.update(record.get("keys", []))
    return named


def foreign_entries(output: str, storage: Storage) -> list[str]:
    """What is at `output` that corpus_pipeline did not write (relative names; "" for the output
    itself when it is a file or a device)."""
    kind = storage.kind(output)
    if kind == "missing":
        return []
    if kind != "folder":
        return [""]
    base = output.rstrip("/") + "/"
    relative = [entry[len(base) :] for entry in storage.entries_under(output)]
    marker = read_marker(output, storage)
    if marker is not None and "files" not in marker:
        return []  # a marker of an earlier version, which named no files: the folder is its stage's
    # WORK_OWNER: a publish killed between its rename and the note's removal leaves it.
    named = {SUCCESS, LEASE_NAME, WORK_OWNER} | set((marker or {}).get("files", {}).values())
    named |= named_by_work_area(base, relative, storage)
    return [name for name in relative if name not in named and not name.startswith(f"{WORK}/")]


def refuse_foreign(output, storage: Storage, what: str = "--output") -> None:
    found = foreign_entries(str(output), storage)
    if not found:
        return
    if found == [""]:
        kind = "a file" if storage.kind(str(output)) == "file" else "a device or special file"
        raise ForeignOutputError(f"{what} {output} is {kind}, not a stage directory: refusing to replace it")
    more = f" (and {len(found) - 1:,} more)" if len(found) > 1 else ""
    raise ForeignOutputError(
        f"{what} {output} holds {found[0]}{more}, which corpus_pipeline did not write: refusing to touch it; "
        "give an output that is new, empty, or a stage directory of ours"
    )


def _within(inner: str, outer: str) -> bool:
    return inner.startswith(outer.rstrip("/") + "/")


def check_output_apart(output, inputs: list[str | Path]) -> None:
    """Refuse an output that equals, contains or lies inside an input, before anything is written."""
    target = absolute(output, resolve_links=True)
    for name in inputs:
        source = absolute(name, resolve_links=True)
        if target == source or _within(source, target) or _within(target, source):
            relation = "is" if target == source else "contains" if _within(source, target) else "lies inside"
            raise OutputOverlapsInputError(
                f"--output {output} {relation} the input {name}: writing it would destroy the input"
            )


class OutputClaim:
    """What both placements of a stage directory share (engine/store/stage_dir.py, object_stage.py):
    the claim on the output, taken before anything is written there."""

    output: Path | str
    storage: Storage

    @contextmanager
    def claim(self) -> Iterator[None]:
        """Refuse an output another command writes (75) or that holds what we did not write (2);
        then hold its one-writer lock."""
        refuse_if_held(self.storage, str(self.output))
        refuse_foreign(self.output, self.storage)
        with output_lock(self.storage, str(self.output)):
            yield
