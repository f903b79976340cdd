"""What the store tests share: a small dataset, a CLI call, and a byte-for-byte picture of a tree."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from corpus_pipeline.cli import main

TEXT = "The committee met on Tuesday to review the budget for the coming year and approved it. " * 4


def write_dataset(path: Path, documents: int = 5) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{"id": f"doc-{n}", "text": f"{TEXT} Item {n}.", "url": f"https://a.example/{n}"} for n in range(documents)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def ingest(inputs: list[Path | str], output: Path | str, *more: str) -> int:
    return main(["ingest", "--runner", "local", "--input", *map(str, inputs), "--output", str(output), *more])


def picture(root: Path) -> dict[str, object]:
    """Every entry under `root` (itself included) -> its bytes, "folder", or its file type."""
    found: dict[str, object] = {}
    for path in [root, *sorted(root.rglob("*"))] if root.exists() else []:
        mode = os.lstat(path).st_mode
        name = path.relative_to(root).as_posix()
        if stat.S_ISDIR(mode):
            found[name] = "folder"
        elif stat.S_ISREG(mode):
            found[name] = path.read_bytes()
        else:
            found[name] = stat.S_IFMT(mode)
    return found
