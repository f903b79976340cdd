"""Expand `--input` arguments (files, globs, directories; `s3://` objects, prefixes and key globs;
Common Crawl paths listings) into a sorted list of input files."""

from __future__ import annotations

import glob
import os

from corpus_pipeline.storage import Storage, is_object_uri
from corpus_pipeline.storage.listing import has_suffix, is_paths_listing, matching_objects, paths_listing

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
            matches = matching_objects(storage, argument, suffixes)
            if not matches:
                raise FileNotFoundError(f"--input {argument}: no such object, or no {kinds} objects under it")
            found.update(matches)
        elif os.path.isdir(argument):
            for root, _, names in os.walk(argument):
                found.update(os.path.join(root, n) for n in names if has_suffix(n, suffixes))
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
