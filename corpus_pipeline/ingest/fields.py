"""Refuse, before anything is written, a field mapping that the data does not have: a text field,
or an id, source or url field named in the config, that is in none of the first records (the
Parquet schema, a CSV header, the keys of the first 1,000 JSON records). Without this a wrong
`--text-field body` commits a stage of 0 documents, and a wrong `--id-field` silently replaces the
dataset's ids with hashes."""

from __future__ import annotations

from itertools import islice

import orjson

from corpus_pipeline.config import ConfigError
from corpus_pipeline.ingest.config import IngestConfig
from corpus_pipeline.ingest.streams import open_stream
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import parquet_schema

PEEK_RECORDS = 1_000
_SHOWN_FIELDS = 40


def _paths(value: dict, prefix: str = "", depth: int = 3) -> set[str]:
    """The field names of a record, nested objects' fields as dotted names (`metadata.url`)."""
    names = set()
    for key, inner in value.items():
        names.add(prefix + key)
        if isinstance(inner, dict) and depth > 1:
            names |= _paths(inner, f"{prefix}{key}.", depth - 1)
    return names


def _struct_paths(fields, prefix: str = "") -> set[str]:
    import pyarrow as pa

    names = set()
    for field in fields:
        names.add(prefix + field.name)
        if pa.types.is_struct(field.type):
            names |= _struct_paths(list(field.type), f"{prefix}{field.name}.")
    return names


def fields_there(path: str, fmt: str, storage: Storage) -> tuple[list[str], str] | None:
    """(the field names the data has, where they were seen); None for formats without fields
    (text, Wikipedia) and for a file that holds no record."""
    # A truncated or corrupt file (any error reading it) is checked no further: its task reads what
    # it can and rejects the rest as a read_error, with the reason.
    try:
        if fmt == "parquet":
            return sorted(_struct_paths(parquet_schema(storage, path))), "its Parquet schema"
        if fmt == "csv":
            from corpus_pipeline.ingest.csv import header_names

            names = header_names(path, storage, None)
            return (names, "its header") if names else None
        if fmt != "jsonl":
            return None
        records = _first_records(path, storage)
    except Exception:
        return None
    names: set[str] = set()
    for record in records:
        if isinstance(record, dict):
            names |= _paths(record)
    if not names:
        return None
    return sorted(names), f"the first {len(records):,} records"


def _first_records(path: str, storage: Storage) -> list:
    """Up to PEEK_RECORDS records of a JSON lines or array file (lines that do not parse left out)."""
    records: list = []
    with open_stream(path, storage) as stream:
        if stream.peek(1 << 16).lstrip()[:1] == b"[":
            try:
                values = orjson.loads(stream.read())
            except orjson.JSONDecodeError:
                return []  # rejected as not_json when read
            return (values if isinstance(values, list) else [values])[:PEEK_RECORDS]
        for line in islice((line for line in stream if line.strip()), PEEK_RECORDS):
            try:
                records.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
    return records


def _wanted(config: IngestConfig) -> list[tuple[str, str]]:
    """(config key, field name) that must be in the data: the text always; the others when the
    config names one of its own (the defaults `id`, `url` may well be absent: hashed ids, no url).
    Told by the value, not by what was set: a pipeline source's config sets every field."""
    wanted = [("text_field", config.text_field)]
    for key in ("id_field", "url_field", "source_field"):
        name = getattr(config, key)
        # (A list is tried in order, each name where a record has it: the url's default.)
        if isinstance(name, str) and name != type(config).model_fields[key].default:
            wanted.append((key, name))
    return wanted


def check_fields(path: str, shown: str, fmt: str, config: IngestConfig, storage: Storage) -> None:
    found = fields_there(path, fmt, storage)
    if found is None:
        return
    names, where = found
    missing = [(key, name) for key, name in _wanted(config) if name not in names]
    if not missing:
        return
    listed = ", ".join(names[:_SHOWN_FIELDS]) + (
        f" and {len(names) - _SHOWN_FIELDS} more" if len(names) > _SHOWN_FIELDS else ""
    )
    what = "; ".join(f"ingest.{key} {name!r}" for key, name in missing)
    raise ConfigError(f"{shown}: {what}: not in {where}; the fields there: {listed}")
