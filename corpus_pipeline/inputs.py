"""Expand `--input` arguments (files, globs, directories; `s3://` objects, prefixes and key globs;
Common Crawl paths listings) into a sorted list of input files."""

from __future__ import annotations

import logging
import os

from corpus_pipeline.engine.store.layout import ATTEMPTS_DIR, COMMITTED_DIR, REJECTED_DIR, STATS_DIR, WORK
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.listing import has_suffix, is_paths_listing, matching_files, paths_listing
from corpus_pipeline.storage.locations import absolute

# A stage's internals, never data: attempts, commit areas, rejects, task counters.
STAGE_INTERNALS = frozenset({ATTEMPTS_DIR, COMMITTED_DIR, REJECTED_DIR, STATS_DIR, WORK})

CRAWL_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".wet", ".wet.gz", ".warc.wet.gz")
SUFFIXES_SHOWN = ", ".join(CRAWL_SUFFIXES)


LOG = logging.getLogger("corpus_pipeline.inputs")


def expand_crawl_inputs(arguments: list[str], storage: Storage) -> list[str]:
    """The crawl files; a local folder's other files (a README, a listing, an image) are left out
    (name_skipped_crawl_files says which)."""
    return expand_inputs(arguments, CRAWL_SUFFIXES, "WARC, ARC or WET", storage)


def name_skipped_crawl_files(arguments: list[str], storage: Storage) -> None:
    """Name in the log each file of a local folder in `arguments` that extract leaves out, as ingest
    names the files it skips. Called where the folders are turned into extract's tasks (the stage's
    input_files, run's extract step), not by the listings before them (run's preflight), so each
    file is named once per command."""
    for folder in [argument for argument in arguments if os.path.isdir(argument)]:  # an s3:// prefix is none
        for path in sorted(matching_files(storage, folder, ("",), "any", _enters)):
            if not has_suffix(path, CRAWL_SUFFIXES):
                LOG.warning("extract: skipped %s: not a WARC, ARC or WET file name (%s)", path, SUFFIXES_SHOWN)


def expand_inputs(arguments: list[str], suffixes: tuple[str, ...], kinds: str, storage: Storage) -> list[str]:
    """Files named explicitly (or by a paths listing) are taken whatever their suffix; directories,
    prefixes and globs contribute files with one of `suffixes` (`kinds` names them in the error when
    there are none), never from a hidden folder (`.x.inprogress-*`, `.x.retired`: a stage or a crawl
    still running, or killed) or a stage's internals. Sorted and de-duplicated, so task N is always
    the same file."""
    found: set[str] = set()
    for argument in arguments:
        if is_paths_listing(argument):
            found.update(paths_listing(storage, argument))
        else:
            found.update(matching_files(storage, argument, suffixes, kinds, _enters))
    if not found:
        raise FileNotFoundError(f"--input {' '.join(arguments)}: no {kinds} files found")
    return sorted(absolute(path) for path in found)


def _enters(folder: str) -> bool:
    return not folder.startswith(".") and folder not in STAGE_INTERNALS
