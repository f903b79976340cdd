"""Arrow batches of dataset records (a Parquet file's, or JSON lines parsed by pyarrow) -> document
tables with their verdicts, checked with Arrow kernels: no Python object per row except the ids
(duplicates, hashes) and, with `domains.rules`, the URLs.

The checks are those of `records.Records`, column-wise: a missing, null or non-string text, text
that is not valid UTF-8 (Parquet writers may store any bytes), too large, empty or blank; an id that
is a string or an integer, else hashed; an id seen before in the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import compress, repeat
from operator import is_, is_not

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.config_base import NAME_PATTERN
from corpus_pipeline.document import DOCUMENT_SCHEMA, source_text_id
from corpus_pipeline.ingest.records import Records, duplicate_detail, prefixed
from corpus_pipeline.stages.base import VerdictTable

_STRING_TYPES = (pa.string(), pa.large_string(), pa.string_view())
# Rows checked at once: each batch costs ~60 Arrow calls of ~20 us whatever its size, which at
# 1,000 rows was a third of the checks' time; 8,192 rows of 10 KB documents are ~80 MB.
CHECK_ROWS = 8_192


def check_rows(records: Records, rows: int) -> int:
    """Rows to check at once: CHECK_ROWS, or `rows` when `ingest.limit` may stop the file early
    (what is checked is counted in)."""
    return rows if records.config.limit is not None else max(rows, CHECK_ROWS)


def pieces(part: VerdictTable, rows: int, spans: list[int] | None = None) -> Iterator[VerdictTable]:
    """`part` in tables of up to `rows` rows (slices: nothing copied), as the stage writes them;
    none across the ends of `spans` (row counts that add up to the part's), the batches a reader
    would have checked one by one: the same tables, so the same row groups and pages written."""
    start = 0
    for span in spans or [part.table.num_rows]:
        for offset in range(start, start + span, rows):
            size = min(rows, start + span - offset)
            yield VerdictTable(
                part.table.slice(offset, size), part.reasons.slice(offset, size), part.details.slice(offset, size)
            )
        start += span


def column(batch: pa.RecordBatch, name: str | None) -> pa.Array | None:
    """A column by name; a dotted name reaches into struct columns (`metadata.url`)."""
    if name is None:
        return None
    if name in batch.schema.names:
        return _decoded(batch.column(name))
    head, _, rest = name.partition(".")
    if not rest or head not in batch.schema.names:
        return None
    try:
        return _decoded(pc.struct_field(batch.column(head), rest.split(".")))
    except (pa.ArrowInvalid, pa.ArrowTypeError, KeyError):
        return None


def _decoded(array: pa.Array) -> pa.Array:
    """Dictionary-encoded columns (pandas Categorical) as their values; binary columns as strings,
    their bytes unchecked here (invalid UTF-8 is rejected row by row where it is a text)."""
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if pa.types.is_binary(array.type):
        return array.view(pa.string())
    if pa.types.is_large_binary(array.type):
        return array.view(pa.large_string())
    if pa.types.is_binary_view(array.type):
        return array.cast(pa.binary()).view(pa.string())
    return array


def first_of(batch: pa.RecordBatch, names: tuple[str, ...]) -> pa.Array:
    """Each row's value of the first of `names` that it has (the date fields, the url fields)."""
    found = [_strings(column(batch, name), batch.num_rows) for name in names if column(batch, name) is not None]
    if not found:
        return pa.nulls(batch.num_rows, pa.string())
    return found[0] if len(found) == 1 else pc.coalesce(*found)


def source_column(batch: pa.RecordBatch, records: Records) -> pa.Array:
    """`ingest.source_field`'s values where they are plain names, else `ingest.source`."""
    config, n = records.config, batch.num_rows
    if config.source_field is None:
        return constant(config.source, n)
    values = _strings(column(batch, config.source_field), n)
    plain = pc.fill_null(pc.match_substring_regex(values, NAME_PATTERN), False)
    fallbacks = n - pc.sum(plain).as_py() if n else 0
    if fallbacks:
        records.stats.count("source_fallbacks", "null or not a plain name", fallbacks)
    return pc.if_else(plain, values, config.source)


def _strings(array: pa.Array | None, rows: int) -> pa.Array:
    """A column for a string column of the document: timestamps in ISO 8601 (`date`), other types
    as Arrow writes them, bytes that are not UTF-8 repaired with U+FFFD."""
    if array is None:
        return pa.nulls(rows, pa.string())
    if pa.types.is_timestamp(array.type):
        return pc.strftime(array.cast(pa.timestamp("s", "UTC"), safe=False), "%Y-%m-%dT%H:%M:%SZ")
    strings = array.cast(pa.string()) if not pa.types.is_string(array.type) else array
    try:
        strings.validate(full=True)
        return strings
    except pa.ArrowInvalid:
        raw = strings.cast(pa.binary()).to_pylist()
        return pa.array([None if v is None else v.decode("utf-8", "replace") for v in raw], pa.string())


def documents(
    batch: pa.RecordBatch,
    records: Records,
    first: int,
    unit: str,
    metadata: pa.Array | list | None = None,
    valid_utf8: bool = False,
) -> VerdictTable:
    """The documents of `batch`, whose first record is `unit` number `first` of the file (`row 0`,
    `line 1`): what rejected rows are named by. `metadata`: each row's, when the reader has it
    (JSON lines: from the line itself, exactly as written); else from the batch's other columns.
    `valid_utf8`: the reader has checked every string of the batch (JSON lines: the bytes as read)."""
    config, n = records.config, batch.num_rows
    text = column(batch, config.text_field)
    reasons: list[str | None] = [None] * n
    details: list[str | None] = [None] * n

    def reject(mask: pa.Array, reason: str, detail: str) -> None:
        for index in pc.indices_nonzero(pc.fill_null(mask, False)).to_pylist():
            if reasons[index] is None:
                reasons[index], details[index] = reason, detail

    if text is None or text.type not in _STRING_TYPES:
        found = "no" if text is None else f"a {text.type}"
        reasons = ["missing_text" if text is None else "text_not_string"] * n
        details = [f"{found} {config.text_field!r} column"] * n
        text = pa.nulls(n, pa.string())
    else:
        text = text.cast(pa.string())
        reject(pc.is_null(text), "missing_text", f"{config.text_field!r} is null")
        text = text if valid_utf8 else _valid_utf8(text, reasons, details)
    size = pc.binary_length(text)
    records.stats.add_in(n, pc.sum(size).as_py() or 0)
    too_large = pc.fill_null(pc.greater(size, config.max_text_bytes), False)
    reject(too_large, "too_large", f"text over {config.max_text_bytes} bytes")
    reject(pc.or_(pc.equal(size, 0), pc.utf8_is_space(text)), "empty_text", "")
    # A rejected row keeps its text, except one too large to be worth storing twice. (Most batches
    # have neither a null nor a too large text: no copy of the texts then, 8 of 17 ms per 23k rows.)
    if text.null_count or pc.any(too_large).as_py():
        text = pc.if_else(too_large, "", pc.fill_null(text, ""))
    ids, hashed, given_ids = _ids(batch, text, records, reasons, details)
    url = first_of(batch, config.url_fields())
    clean = reasons.count(None) == n  # most batches reject nothing: no loop over their rows then
    kept_ids = ids
    if not clean:  # (`compress` walks the rows in C: a comprehension over 8,192 was 0.3 ms a batch)
        for index in compress(range(n), map(is_not, reasons, repeat(None))):
            ids[index] = f"{records.name}:{unit} {first + index}"
        kept_ids = list(compress(ids, map(is_, reasons, repeat(None))))
    # Most batches repeat no id: one set operation then, a look-up per row only when one does.
    if not records.seen.all_new(kept_ids):
        clean = False
        for index, doc_id in enumerate(ids):
            if reasons[index] is None and not records.seen.first_time(doc_id):
                reasons[index] = "duplicate_id"
                details[index] = duplicate_detail(f"{unit} {first + index}", hashed=index in hashed)
    domains = constant(config.domain, n)
    if records.rules:
        texts = text.to_pylist() if records.rules.needs_text else None
        domains = pa.array(records.rules.domains_of(url.to_pylist(), config.domain, texts), pa.string())
    columns = {
        # The given ids as they are when no row's was replaced (0.8 ms a batch of 8,192 saved)
        "id": given_ids if clean and given_ids is not None else pa.array(ids, pa.string()),
        "text": text,
        "url": url,
        "date": first_of(batch, config.date_fields()),
        "dump": _strings(column(batch, config.dump_field), n),
        "source": source_column(batch, records),
        "domain": domains,
        "file_path": constant(records.path, n),
        "language": _strings(column(batch, config.language_field), n),
        "metadata": _metadata(batch, records, metadata),
    }
    arrays = [columns[f.name] if f.name in columns else pa.nulls(n, f.type) for f in DOCUMENT_SCHEMA]
    table = pa.Table.from_arrays(arrays, schema=DOCUMENT_SCHEMA)
    if clean:
        return VerdictTable(table, pa.nulls(n, pa.string()), pa.nulls(n, pa.string()))
    return VerdictTable(table, pa.array(reasons, pa.string()), pa.array(details, pa.string()))


def constant(value: str | None, rows: int) -> pa.Array:
    """A string column holding `value` in every row (a source's name, the file's path)."""
    return pa.nulls(rows, pa.string()) if value is None else pa.repeat(pa.scalar(value, pa.string()), rows)


def _metadata(batch: pa.RecordBatch, records: Records, given: pa.Array | list | None) -> pa.Array:
    if given is None:
        return records.metadata.column(batch)
    return given if isinstance(given, pa.Array) else pa.array(given, pa.string())


def _valid_utf8(text: pa.Array, reasons: list, details: list) -> pa.Array:
    """`text` with the rows that are not valid UTF-8 rejected and replaced by their repaired bytes."""
    try:
        text.validate(full=True)
        return text
    except pa.ArrowInvalid:
        pass
    values = []
    for index, raw in enumerate(text.cast(pa.binary()).to_pylist()):
        if raw is None:
            values.append(None)
            continue
        try:
            values.append(raw.decode("utf-8"))
        except UnicodeDecodeError as error:
            values.append(raw.decode("utf-8", "replace"))
            if reasons[index] is None:
                reasons[index], details[index] = "invalid_utf8", f"byte {error.start} of the text: {error.reason}"
    return pa.array(values, pa.string())


def _ids(
    batch: pa.RecordBatch, text: pa.Array, records: Records, reasons: list, details: list
) -> tuple[list, set, pa.Array | None]:
    """Each row's id: the given one as a string, else the hash of the source name and the text;
    the rows whose id is such a hash; and the ids as an Arrow column when every row's is the given
    one (no prefix, none hashed), else None."""
    config, n = records.config, batch.num_rows
    given = column(batch, config.id_field)
    if given is not None and pa.types.is_null(given.type):  # JSON lines whose ids are all null
        given = None
    if given is not None and not (pa.types.is_integer(given.type) or given.type in _STRING_TYPES):
        for index in range(n):
            if reasons[index] is None:
                reasons[index], details[index] = "invalid_id", f"a {given.type} id column"
        given = None
    given = given.cast(pa.string()) if given is not None else None
    ids = given.to_pylist() if given is not None else [None] * n
    if config.id_prefix:
        ids = [None if doc_id is None else prefixed(config.id_prefix, doc_id) for doc_id in ids]
    missing = []  # the rows whose id is hashed (in most datasets every row has its id: no loop then)
    if given is None or given.null_count:
        missing = [index for index, doc_id in enumerate(ids) if doc_id is None and reasons[index] is None]
    if missing:
        raw = text.cast(pa.binary()).take(pa.array(missing)).to_pylist()
        for index, value in zip(missing, raw, strict=True):
            ids[index] = source_text_id(config.source, value)
    as_given = given if given is not None and not config.id_prefix and not missing else None
    return ids, set(missing), as_given
