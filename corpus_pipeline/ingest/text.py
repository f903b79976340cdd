"""Plain UTF-8 text (`.txt`, `.txt.gz`...): the whole file is one document (`ingest.text_unit:
file`), or each block of lines between blank lines is (`block`), or each non-blank line (`line`).
Read a line at a time; a text over `ingest.max_text_bytes` is rejected without being held whole."""

from __future__ import annotations

from collections.abc import Iterator

from corpus_pipeline.ingest.records import Records
from corpus_pipeline.ingest.streams import open_stream
from corpus_pipeline.stages.base import Drop
from corpus_pipeline.storage import Storage


def read_text(path: str, records: Records, storage: Storage) -> Iterator[None]:
    config = records.config
    with open_stream(path, storage) as stream:
        lines: list[bytes] = []
        size, first, blocks = 0, 1, 0
        for number, line in enumerate(stream, 1):
            if config.text_unit == "line":
                if not line.isspace():
                    _add(records, f"line {number}", [line], len(line))
                    yield
                continue
            if config.text_unit == "block" and line.isspace():
                if lines or size:
                    blocks += 1
                    _add(records, f"block {blocks} (line {first})", lines, size)
                    yield
                lines, size, first = [], 0, number + 1
                continue
            size += len(line)
            if size <= config.max_text_bytes:  # past the limit only the size is kept
                lines.append(line)
        if lines or size or config.text_unit == "file":  # nothing is left over by `line`
            where = "file" if config.text_unit == "file" else f"block {blocks + 1} (line {first})"
            _add(records, where, lines, size)
            yield


def _add(records: Records, where: str, lines: list[bytes], size: int) -> None:
    if size > records.config.max_text_bytes:
        detail = f"{size} bytes of text, over {records.config.max_text_bytes}"
        records.reject(where, Drop("too_large", detail), nbytes=size)
        return
    raw = b"".join(lines)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        detail = f"byte {error.start} of the {where.split()[0]}: {error.reason}"
        records.reject(where, Drop("invalid_utf8", detail), raw.decode("utf-8", "replace"), nbytes=size)
        return
    records.add(where, text.removeprefix("\ufeff").strip())  # a BOM is no part of the text
