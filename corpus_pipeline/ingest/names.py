"""What a rejected record's id calls its file: the file relative to the input given (`sub/a.jsonl`
for `--input data/`, `a.jsonl` for `--input data/a.jsonl`), never the absolute path of the machine
that ran it, so the same input gives the same rejected ids anywhere."""

from __future__ import annotations

import glob

from corpus_pipeline.storage.locations import absolute


def _base(argument: str, files: set[str]) -> str:
    """The folder or prefix that an argument's files are named from ("": a file, named by its name)."""
    if glob.escape(argument) != argument:  # a glob: from the folder before its first wildcard
        head = argument[: min(argument.find(c) for c in "*?[" if c in argument)]
        return absolute(head.rpartition("/")[0] or ".")
    where = absolute(argument)
    return "" if where in files else where  # a file named, or a folder (prefix) of them


def relative_names(arguments: list[str], files: list[str]) -> dict[str, str]:
    known = set(files)
    bases = [b for b in (_base(a, known) for a in arguments) if b]
    names = {}
    for path in files:
        inside = [b for b in bases if path.startswith(b.rstrip("/") + "/")]
        if inside:
            names[path] = path[len(max(inside, key=len).rstrip("/")) + 1 :]
        else:
            names[path] = path.rstrip("/").rsplit("/", 1)[-1]
    return names
