"""Expand `--input` arguments (files, globs, directories; `s3://` objects, prefixes and key globs;
Common Crawl paths listings) into a sorted list of input files."""

from __future__ import annotations

import logging
import os

from corpus_pipeline.engine.layout import ATTEMPTS_DIR, COMMITTED_DIR, REJECTED_DIR, STATS_DIR, WORK
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.listing import has_suffix, is_paths_listing, matching_files, paths_listing
from corpus_pipeline.storage.locations import absolute

# A stage's internals, never data: attempts, commit areas, rejects, task counters.
STAGE_INTERNALS = frozenset({ATTEMPTS_DIR, COMMITTED_DIR, REJECTED_DIR, STATS_DIR, WORK})

CRAWL_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".wet", ".wet.gz", ".warc.wet.gz")
SUFFIXES_SHOWN = ", ".join(CRAWL_SUFFIXES)


LOG = logging.getLogger("corpus_pipeline.inputs")
# Skipped files already named in this process: `run` lists its inputs in its preflight, then again
# in its extract step, and a file is named once.
_NAMED_SKIPPED: set[str] = set()


def expand_crawl_inputs(arguments: list[str], storage: Storage) -> list[str]:
    """The crawl files; a local folder's other files (a README, a listing, an image) are left out,
    each named once in the log, as ingest names the files it skips."""
    files = expand_inputs(arguments, CRAWL_SUFFIXES, "WARC, ARC or WET", storage)
    folders = [argument for argument in arguments if os.path.isdir(argument)]  # an s3:// prefix is none
    for folder in folders:
        for path in sorted(matching_files(storage, folder, ("",), "any", _enters)):
            if not has_suffix(path, CRAWL_SUFFIXES) and absolute(path) not in _NAMED_SKIPPED:
                _NAMED_SKIPPED.add(absolute(path))
                LOG.warning("extract: skipped %s: not a WARC, ARC or WET file name (%s)", path, SUFFIXES_SHOWN)
    return files


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
