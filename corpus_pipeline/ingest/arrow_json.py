"""Arrow columns -> the JSON text of each value, with Arrow's string kernels: no Python object per
row for strings, numbers, booleans, structs and lists (the types of JSON lines and of most Parquet
datasets' extra columns); a type no kernel writes (timestamps, decimals, binary, maps) is written
value by value with orjson, as `metadata.dumps` writes it. Used for the `metadata` column: for
22,946 FineWeb-shaped documents (a float and an object of two integers) from JSON lines 0.012 CPU s,
where a dict and an `orjson.dumps` a row took 0.022 per 11,473 and pyarrow's whole parse of the
22,946 lines takes 0.09.

Objects leave out their null fields when `drop_nulls` (JSON lines, whose absent keys pyarrow's
reader fills with nulls), else write them as `null` (a Parquet struct's nulls are values).
The pieces of each row's text are put together by one `take` (`concat_rows`), not by
`pyarrow.compute.binary_join_element_wise`, which costs ~45 ns a row and input where a take costs
~9 ns a piece (23k FineWeb-shaped rows' float and object: 0.019 -> 0.012 CPU s from JSON lines,
0.011 -> 0.008 from Parquet), and whose `null_handling="skip"` in pyarrow 26 drops the rows where
every input is null (3 rows in, 2 out).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

# A path inside a struct column that a document column takes (`metadata.url`): left out.
Paths = tuple[tuple[str, ...], ...]
# What a JSON string escapes (RFC 8259 section 7): the backslash first, the quote, the control
# characters (the common ones short, the others as \u00XX).
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_TO_ESCAPE = r'[\x00-\x1f"\\]'


def json_texts(array: pa.Array, fallback: Callable[[object], str], drop_nulls: bool, skip: Paths = ()) -> pa.Array:
    """Each value of `array` as JSON text (a string array), null where the value is null.
    `fallback`: one value (as `to_pylist` gives it) -> its JSON, for the types no kernel writes."""
    kind = array.type
    if pa.types.is_null(kind):
        return pa.nulls(len(array), pa.string())
    if pa.types.is_dictionary(kind):
        return json_texts(array.dictionary_decode(), fallback, drop_nulls, skip)
    if pa.types.is_boolean(kind):
        return pc.if_else(array, "true", "false")
    if pa.types.is_integer(kind):
        return array.cast(pa.string())
    if pa.types.is_float32(kind) or pa.types.is_float64(kind):
        return _floats(array)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return _strings(array.cast(pa.string()), fallback)
    if pa.types.is_struct(kind):
        return _object(array, fallback, drop_nulls, skip)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return _list(array, fallback, drop_nulls)
    return pa.array([None if value is None else fallback(value) for value in array.to_pylist()], pa.string())


def concat_rows(rows: int, parts: list[pa.Array | np.ndarray], constants: list[str], valid=None) -> pa.Array:
    """A string array whose row i is each part's row i put together, in order. A part is a string
    array of `rows` values (a null adds nothing) or `rows` indices into `constants` (-1: nothing).
    Null where `valid` (booleans, numpy) is false. One `take` from a pool of the parts' values and
    the constants puts every row's pieces side by side: its data is the result's, and every
    len(parts)-th of its offsets is a row's."""
    arrays = [part.cast(pa.string()) for part in parts if isinstance(part, pa.Array)]
    pool = pa.concat_arrays([*arrays, pa.array([*constants, None], pa.string())])
    index = np.empty((rows, len(parts)), np.int64)
    start, first_constant = 0, len(pool) - len(constants) - 1
    for column, part in enumerate(parts):
        if isinstance(part, pa.Array):
            index[:, column] = np.arange(start, start + rows)
            start += rows
        else:
            index[:, column] = np.where(part < 0, len(pool) - 1, first_constant + part)
    pieces = pool.take(pa.array(index.reshape(-1)))
    offsets = np.frombuffer(pieces.buffers()[1], np.int32)[: len(pieces) + 1 : len(parts)]
    validity = None if valid is None else pa.array(valid, pa.bool_()).buffers()[1]
    data = pieces.buffers()[2] or pa.py_buffer(b"")
    return pa.Array.from_buffers(pa.string(), rows, [validity, pa.py_buffer(np.ascontiguousarray(offsets)), data])


def join_object(keys: list[str], values: list[pa.Array], rows: int) -> pa.Array:
    """`{"key": value, ...}` a row from each key's column of JSON texts, leaving out the null
    values; null where a row has none."""
    if not keys:
        return pa.nulls(rows, pa.string())
    present = np.stack([_valid(value) for value in values], axis=1)
    first = present.argmax(axis=1)  # the first value of a row opens the object, the others follow a comma
    constants, parts = [], []
    for column, (key, value) in enumerate(zip(keys, values, strict=True)):
        name = orjson.dumps(key).decode() + ":"
        constants += ["{" + name, "," + name]
        opening = np.where(first == column, 2 * column, 2 * column + 1)
        parts += [np.where(present[:, column], opening, -1), value]
    some = present.any(axis=1)
    return concat_rows(rows, [*parts, np.where(some, len(constants), -1)], [*constants, "}"], some)


def _valid(array: pa.Array) -> np.ndarray:
    return array.is_valid().to_numpy(zero_copy_only=False)


def _floats(array: pa.Array) -> pa.Array:
    """Numbers as orjson writes them: NaN and infinities as null, a whole number with `.0`
    (Arrow writes 1.0 as `1`, which reads back as an integer)."""
    texts = array.cast(pa.float64()).cast(pa.string())
    # Only an integral value can be written as digits alone (1e+20 is not): the text is looked at
    # in those rows only, and changed in those it is (8,192 scores: 0.87 -> 0.60 CPU ms).
    integral = pc.indices_nonzero(pc.fill_null(pc.equal(pc.floor(array), array), False))
    if len(integral):
        whole = pc.filter(integral, pc.match_substring_regex(texts.take(integral), r"^-?\d+$"))
        if len(whole):
            mask = np.zeros(len(texts), bool)
            mask[whole.to_numpy()] = True
            texts = pc.replace_with_mask(texts, mask, pc.binary_join_element_wise(texts.take(whole), ".0", ""))
    finite = pc.is_finite(array)
    if pc.all(finite).as_py() is False:  # (None: every value null)
        texts = pc.if_else(finite, texts, pc.if_else(pc.is_null(array), pa.scalar(None, pa.string()), "null"))
    return texts


def _strings(array: pa.Array, fallback: Callable[[object], str]) -> pa.Array:
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:  # bytes that are not UTF-8 (Parquet writers allow them): as orjson repairs them
        return pa.array([None if v is None else fallback(v) for v in array.cast(pa.binary()).to_pylist()], pa.string())
    escaped = array
    if pc.any(pc.match_substring_regex(array, _TO_ESCAPE)).as_py():  # rare in metadata: a pass a character
        for char in ("\\", '"', *map(chr, range(0x20))):
            if pc.any(pc.match_substring(escaped, char)).as_py():
                escaped = pc.replace_substring(escaped, char, _ESCAPES.get(char, f"\\u{ord(char):04x}"))
    quote = np.zeros(len(escaped), np.int64)
    return concat_rows(len(escaped), [quote, escaped, quote], ['"'], _valid(escaped))


def _object(array: pa.StructArray, fallback: Callable[[object], str], drop_nulls: bool, skip: Paths) -> pa.Array:
    keys, values = [], []
    for index, field in enumerate(array.type):
        inner = tuple(path[1:] for path in skip if path[0] == field.name)
        if () in inner:
            continue  # the field a document column takes
        value = json_texts(pc.struct_field(array, [index]), fallback, drop_nulls, tuple(p for p in inner if p))
        keys.append(field.name)
        values.append(value if drop_nulls else pc.fill_null(value, "null"))
    texts = pc.fill_null(join_object(keys, values, len(array)), "{}")
    return pc.if_else(pc.is_valid(array), texts, pa.scalar(None, pa.string()))


def _list(array: pa.Array, fallback: Callable[[object], str], drop_nulls: bool) -> pa.Array:
    offsets = array.offsets  # of this slice, into the whole child array
    values = array.values[offsets[0].as_py() : offsets[-1].as_py()]
    items = pc.fill_null(json_texts(values, fallback, drop_nulls), "null")
    build = pa.LargeListArray if pa.types.is_large_list(array.type) else pa.ListArray
    lists = build.from_arrays(pc.subtract(offsets, offsets[0]), items, mask=pc.is_null(array))
    joined = pc.binary_join(lists, ",")
    brackets = np.zeros(len(joined), np.int64), np.ones(len(joined), np.int64)
    return concat_rows(len(joined), [brackets[0], joined, brackets[1]], ["[", "]"], _valid(joined))
