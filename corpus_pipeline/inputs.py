"""Expand `--input` arguments (files, globs, directories; `s3://` objects, prefixes and key globs;
Common Crawl paths listings) into a sorted list of input files."""

from __future__ import annotations

import glob
import os

from corpus_pipeline.engine.layout import ATTEMPTS_DIR, COMMITTED_DIR, REJECTED_DIR, STATS_DIR, WORK
from corpus_pipeline.storage import Storage, is_object_uri
from corpus_pipeline.storage.listing import has_suffix, is_paths_listing, matching_objects, paths_listing

# A stage's internals, never data: attempts, commit areas, rejects, task counters.
STAGE_INTERNALS = frozenset({ATTEMPTS_DIR, COMMITTED_DIR, REJECTED_DIR, STATS_DIR, WORK})

CRAWL_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".wet", ".wet.gz", ".warc.wet.gz")


def expand_crawl_inputs(arguments: list[str], storage: Storage | None = None) -> list[str]:
    return expand_inputs(arguments, CRAWL_SUFFIXES, "WARC, ARC or WET", storage)


def expand_inputs(
    arguments: list[str], suffixes: tuple[str, ...], kinds: str, storage: Storage | None = None
) -> list[str]:
    """Files named explicitly (or by a paths listing) are taken whatever their suffix; directories,
    prefixes and globs contribute files with one of `suffixes` (`kinds` names them in the error when
    there are none). Sorted and de-duplicated, so task N is always the same file."""
    storage = storage or Storage()
    found: set[str] = set()
    for argument in arguments:
        if is_paths_listing(argument):
            found.update(paths_listing(storage, argument))
        elif is_object_uri(argument):
            matches = [uri for uri in matching_objects(storage, argument, suffixes) if not _internal(uri)]
            if not matches:
                raise FileNotFoundError(f"--input {argument}: no such object, or no {kinds} objects under it")
            found.update(matches)
        elif os.path.isdir(argument):
            found.update(_walk(argument, suffixes))
        elif os.path.isfile(argument):
            found.add(argument)
        else:
            matches = [m for m in glob.glob(argument, recursive=True) if os.path.isfile(m)]
            if not matches:
                raise FileNotFoundError(f"--input {argument}: no such file, directory or matching glob")
            found.update(matches)
    if not found:
        raise FileNotFoundError(f"--input {' '.join(arguments)}: no {kinds} files found")
    return sorted(path if is_object_uri(path) else os.path.abspath(path) for path in found)


def _internal(path: str) -> bool:
    """A file inside a hidden folder (`.x.inprogress-*`, `.x.retired`) or a stage's internals."""
    folders = path.split("/")[:-1]
    return any(name.startswith(".") or name in STAGE_INTERNALS for name in folders)


def _walk(folder: str, suffixes: tuple[str, ...]) -> list[str]:
    """The files under `folder` with one of `suffixes`, never entering hidden folders (a crawl or a
    stage still running, or killed) or stage internals (attempts, rejects)."""
    found = []
    for root, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if not name.startswith(".") and name not in STAGE_INTERNALS)
        found += [os.path.join(root, name) for name in names if has_suffix(name, suffixes) and not name.startswith(".")]
    return found
