"""The `metadata` column: every field of a record that no document column takes (Dolma's
`metadata.*` and `added`, FineWeb's extra columns, a dataset's `score`), as one JSON object, so
nothing a dataset holds is lost on the way through the stages and out through export. Null values
are left out; a field that a dotted mapping reads (`metadata.url` for `url`) is left out of its
object, the rest of the object is kept.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import re

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.config_base import NAME_PATTERN
from corpus_pipeline.ingest.arrow_json import join_object, json_texts
from corpus_pipeline.ingest.config import IngestConfig

_PLAIN_NAME = re.compile(NAME_PATTERN)


def _json_default(value: object) -> object:
    """Values orjson does not write itself (Parquet's binary and decimal columns, durations)."""
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return {"base64": base64.b64encode(value).decode("ascii")}
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: object) -> str:
    try:
        return orjson.dumps(value, default=_json_default).decode("utf-8")
    except (orjson.JSONEncodeError, TypeError):  # an integer over 64 bits, a set...
        return json.dumps(value, default=str, ensure_ascii=False)


def _without(value: object, path: tuple[str, ...]) -> object:
    """A copy of the nested object `value` without the field at `path`."""
    if not isinstance(value, dict) or path[0] not in value:
        return value
    if len(path) == 1:
        return {k: v for k, v in value.items() if k != path[0]}
    return {**value, path[0]: _without(value[path[0]], path[1:])}


class MetadataFields:
    """Which fields of a record the document columns take, and the JSON of the others."""

    def __init__(self, config: IngestConfig):
        names = [
            config.text_field,
            config.id_field,
            *config.url_fields(),
            config.dump_field,
            config.language_field,
            config.source_field,
        ]
        self.enabled = config.keep_metadata
        self.taken = frozenset(n for n in names if n and "." not in n)
        self.nested = tuple(tuple(n.split(".")) for n in (*names, *config.date_fields()) if n and "." in n)
        self.dates = tuple(n for n in config.date_fields() if "." not in n)

    def others(self, names: list[str]) -> list[str]:
        """The columns of a table that may go into metadata."""
        return [name for name in names if name not in self.taken] if self.enabled else []

    def of(self, record: dict) -> str | None:
        """The metadata JSON of one record (a dict of its fields), None when it has none. The date
        taken is the first of the date fields the record has; the others stay in metadata."""
        if not self.enabled:
            return None
        date = next((name for name in self.dates if record.get(name) is not None), None)
        kept = {k: v for k, v in record.items() if v is not None and k not in self.taken and k != date}
        for path in self.nested:
            if path[0] in kept:
                kept[path[0]] = _without(kept[path[0]], path[1:])
        return dumps(kept) if kept else None

    def column(self, batch: pa.RecordBatch, from_json: bool = False) -> pa.Array:
        """The metadata of every row of an Arrow batch (a Parquet file's, a CSV file's, or JSON
        lines parsed by pyarrow: `from_json`, whose objects' absent keys pyarrow fills with nulls,
        left out again here), as `of` writes it, built with Arrow kernels (`arrow_json`)."""
        names = self.others(batch.schema.names)
        rows = batch.num_rows
        # A row's date is the first of the date fields it has: that one is not metadata, the others are.
        dated, taken = pa.repeat(False, rows), {}
        for name in (name for name in self.dates if name in names):
            present = pc.is_valid(batch.column(name))
            taken[name] = pc.and_not(present, dated)
            dated = pc.or_(dated, present)
        keys, values = [], []
        for name in names:
            if name in taken and pc.all(taken[name]).as_py():
                continue  # every row's date (FineWeb's `date`): no row's metadata
            skip = tuple(path[1:] for path in self.nested if path[0] == name)
            value = json_texts(batch.column(name), _dumps_value(from_json), from_json, skip)
            if name in taken:
                value = pc.if_else(taken[name], pa.scalar(None, pa.string()), value)
            keys.append(name)
            values.append(value)
        return join_object(keys, values, rows)


def _dumps_value(from_json: bool):
    """One value of a type no Arrow kernel writes as JSON, written as `MetadataFields.of` writes it."""

    def write(value: object) -> str:
        return dumps(_without_nulls(value) if from_json else value)

    return write


def _nested(kind: pa.DataType) -> bool:
    return pa.types.is_struct(kind) or pa.types.is_list(kind) or pa.types.is_large_list(kind)


def has_timestamp(kind: pa.DataType) -> bool:
    """A type that holds a timestamp anywhere (pyarrow's JSON reader makes one of an ISO date string)."""
    if pa.types.is_timestamp(kind) or pa.types.is_date(kind):
        return True
    if pa.types.is_struct(kind):
        return any(has_timestamp(field.type) for field in kind)
    if _nested(kind):
        return has_timestamp(kind.value_type)
    return False


def _without_nulls(value: object) -> object:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def plain_source(value: object) -> str | None:
    """A per-record source value that can name a source (directories, mix groups), else None."""
    if isinstance(value, str) and _PLAIN_NAME.match(value):
        return value
    return None
