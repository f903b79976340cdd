"""Expand `--input` arguments (files, globs, directories) into a sorted list of input files."""

from __future__ import annotations

import glob
import os

CRAWL_SUFFIXES = (".warc", ".warc.gz", ".arc", ".arc.gz", ".wet", ".wet.gz", ".warc.wet.gz")


def expand_crawl_inputs(arguments: list[str]) -> list[str]:
    return expand_inputs(arguments, CRAWL_SUFFIXES, "WARC, ARC or WET")


def expand_inputs(arguments: list[str], suffixes: tuple[str, ...], kinds: str) -> list[str]:
    """Files named explicitly are taken whatever their suffix; directories and globs contribute
    files with one of `suffixes` (`kinds` names them in the error when there are none). Sorted and
    de-duplicated, so task N is always the same file."""
    found: set[str] = set()
    for argument in arguments:
        if os.path.isdir(argument):
            for root, _, names in os.walk(argument):
                found.update(os.path.join(root, n) for n in names if n.endswith(suffixes))
        elif os.path.isfile(argument):
            found.add(argument)
        else:
            matches = [m for m in glob.glob(argument, recursive=True) if os.path.isfile(m)]
            if not matches:
                raise FileNotFoundError(f"--input {argument}: no such file, directory or matching glob")
            found.update(matches)
    if not found:
        raise FileNotFoundError(f"--input {' '.join(arguments)}: no {kinds} files found")
    return sorted(os.path.abspath(path) for path in found)
