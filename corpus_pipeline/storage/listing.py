"""What an `s3://` input argument names, and what a Common Crawl paths listing lists.

An argument is an object (`s3://bucket/key`, taken whatever its suffix), a prefix (every object
under `s3://bucket/prefix/` with one of the stage's suffixes), or a glob on keys (`*` and `?` within
one path segment, `**` across segments, as `glob.glob(recursive=True)` reads them locally).
A paths listing (`warc.paths.gz`, `wet.paths.gz`, or any `*.paths[.gz]`, local or an object) holds
one key a line, relative to `storage.paths_base_url` (`s3://commoncrawl/` by default): each is a
file of the input whatever its suffix, so `head -3` of a listing is a slice of a crawl.
"""

from __future__ import annotations

import errno
import fnmatch
import glob
import gzip
import logging
import os
import re
import stat
from collections.abc import Callable

from corpus_pipeline.storage.errors import InputRefusedError
from corpus_pipeline.storage.storage import S3_SCHEME, Storage, is_object_uri, split_uri

log = logging.getLogger(__name__)

PATHS_LISTING_SUFFIXES = (".paths", ".paths.gz")
_GLOB_CHARACTERS = re.compile(r"[*?\[]")


def is_paths_listing(argument: str) -> bool:
    return argument.endswith(PATHS_LISTING_SUFFIXES)


def has_suffix(name: str, suffixes: tuple[str, ...]) -> bool:
    """`name` ends with one of `suffixes`; a suffix with `*` is a glob on the name's end (Wikipedia's
    dump parts are named `enwiki-20240601-pages-articles1.xml-p1p41242.bz2`: `.xml-p*.bz2`)."""
    return name.endswith(tuple(s for s in suffixes if "*" not in s)) or any(
        fnmatch.fnmatchcase(name, "*" + s) for s in suffixes if "*" in s
    )


def matching_files(
    storage: Storage, argument: str, suffixes: tuple[str, ...], kinds: str, enters: Callable[[str], bool]
) -> list[str]:
    """The files an `--input` argument names, local or objects: a file or an object whatever its
    suffix; a folder or prefix, its files with one of `suffixes` in folders whose names `enters`
    accepts; a glob, what it matches. FileNotFoundError, naming `kinds`, when it names nothing."""
    if is_object_uri(argument):
        named = _GLOB_CHARACTERS.split(argument, maxsplit=1)[0].rpartition("/")[0]
        matches = [uri for uri in matching_objects(storage, argument, suffixes) if _entered(uri, named, enters)]
        if not matches:
            raise FileNotFoundError(f"--input {argument}: no such object, or no {kinds} objects under it")
        return matches
    if os.path.isdir(argument):
        return _walk(argument, suffixes, enters)
    if os.path.lexists(argument):
        return _regular_files([argument], named=True)
    matches = _regular_files(glob.glob(argument, recursive=True), named=False)
    if not matches:
        raise FileNotFoundError(f"--input {argument}: no such file, directory or matching glob")
    return matches


def _entered(uri: str, named: str, enters: Callable[[str], bool]) -> bool:
    """Whether every folder of `uri` below the prefix the argument `named` is one to enter."""
    below = uri[len(named) :] if uri.startswith(named + "/") else uri[len(S3_SCHEME) :].partition("/")[2]
    return all(enters(folder) for folder in below.split("/")[1:-1])


def _walk(folder: str, suffixes: tuple[str, ...], enters: Callable[[str], bool]) -> list[str]:
    found = []
    for root, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if enters(name))
        found += [os.path.join(root, name) for name in names if has_suffix(name, suffixes) and not name.startswith(".")]
    return _regular_files(found, named=False)


def _regular_files(paths: list[str], named: bool) -> list[str]:
    """The regular files among `paths` (links followed). A FIFO, a socket or a device is never
    opened (a FIFO blocks its reader forever): skipped and said in the log, or refused when named
    explicitly; a symbolic link loop is refused (exit 2), naming it."""
    regular = []
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise InputRefusedError(f"--input {path!r}: a loop of symbolic links, no file") from None
            if not os.path.islink(path):
                raise
            mode, why = None, f"a link to {os.readlink(path)!r}, which is not there"
        else:
            why = "a FIFO, socket or device, not a file: never opened (a FIFO blocks its reader)"
        if mode is not None and stat.S_ISREG(mode):
            if _utf8(path):
                regular.append(path)
                continue
            mode, why = None, "its name is not UTF-8 (the file_path column and the task plan are text): rename it"
        if mode is None or not stat.S_ISDIR(mode):
            if named:
                raise InputRefusedError(f"--input {path!r}: {why}")
            log.warning("input: skipped %r: %s", path, why)
    return regular


def _utf8(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # os.fsdecode kept undecodable bytes as lone surrogates
        return False
    return True


def matching_objects(storage: Storage, argument: str, suffixes: tuple[str, ...]) -> list[str]:
    """The object URIs `argument` names ([] when none)."""
    bucket, key = split_uri(argument)
    glob = _GLOB_CHARACTERS.search(key)
    if glob is None:
        try:
            storage.info(argument)
            return [argument]
        except FileNotFoundError:  # not an object: a prefix, read as a directory
            return [uri for uri in storage.list_prefix(bucket, key.rstrip("/") + "/") if has_suffix(uri, suffixes)]
    base = key[: glob.start()].rpartition("/")[0]
    pattern = _key_pattern(key)
    return [uri for uri in storage.list_prefix(bucket, base) if pattern.fullmatch(split_uri(uri)[1])]


def _key_pattern(glob: str) -> re.Pattern:
    parts = []
    for token in re.split(r"(\*\*/?|\*|\?|\[[^\]]*\])", glob):
        if token.startswith("**"):
            parts.append("(?:.*/)?" if token.endswith("/") else ".*")
        elif token == "*":
            parts.append("[^/]*")
        elif token == "?":
            parts.append("[^/]")
        elif token.startswith("[") and token.endswith("]") and len(token) > 2:
            parts.append("[" + ("^" + token[2:-1] if token[1] == "!" else token[1:-1]) + "]")
        else:
            parts.append(re.escape(token))
    return re.compile("".join(parts))


def paths_listing(storage: Storage, listing: str) -> list[str]:
    """The files a paths listing names, in its order: relative keys joined to the base URL,
    absolute URIs and paths as written."""
    base = storage.config.paths_base_url.rstrip("/")
    with storage.open(listing) as raw:
        lines = (gzip.GzipFile(fileobj=raw) if listing.endswith(".gz") else raw).read().decode("utf-8").splitlines()
    entries = [line.strip() for line in lines if line.strip()]
    if not entries:
        raise FileNotFoundError(f"--input {listing}: the paths listing lists no files")
    return [entry if is_object_uri(entry) or entry.startswith("/") else f"{base}/{entry}" for entry in entries]
