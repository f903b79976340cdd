"""The dataset formats `ingest` reads, listed once: the README, `ingest --help` and the "no files
found" error all print `formats_text()`. And how a file's format is told: its content first (the
magic bytes of a compression or of Parquet, then the first characters once decompressed), its name
second; a file whose content disagrees with its name is read by its content, with a note.
"""

from __future__ import annotations

import bz2
import lzma
import zlib
from dataclasses import dataclass

from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.listing import has_suffix


@dataclass(frozen=True)
class DatasetFormat:
    name: str  # the `ingest.format` value
    label: str
    suffixes: tuple[str, ...]  # names, before a compression suffix
    compressible: bool = True


FORMATS: tuple[DatasetFormat, ...] = (
    DatasetFormat("jsonl", "JSON lines or a JSON array", (".jsonl", ".json", ".ndjson")),
    DatasetFormat("parquet", "Parquet", (".parquet",), compressible=False),
    DatasetFormat("csv", "CSV or TSV with a header row", (".csv", ".tsv")),
    DatasetFormat("text", "plain UTF-8 text", (".txt",)),
    # Wikipedia's dump parts: enwiki-20240601-pages-articles1.xml-p1p41242.bz2
    DatasetFormat("wikipedia", "MediaWiki XML dumps", (".xml", ".xml-p*")),
)
# Magic bytes -> (compression, its usual suffix).
COMPRESSIONS: tuple[tuple[bytes, str, str], ...] = (
    (b"\x1f\x8b", "gzip", ".gz"),
    (b"\x28\xb5\x2f\xfd", "zstd", ".zst"),
    (b"BZh", "bzip2", ".bz2"),
    (b"\xfd7zXZ\x00", "xz", ".xz"),
)
PARQUET_MAGIC = b"PAR1"
# Enough decompressed bytes to see a MediaWiki dump's root element after its XML declaration.
_HEAD_BYTES = 64 << 10


def suffixes_of(fmt: DatasetFormat) -> tuple[str, ...]:
    compressed = tuple(s + c for s in fmt.suffixes for _, _, c in COMPRESSIONS) if fmt.compressible else ()
    return fmt.suffixes + compressed


ALL_SUFFIXES = tuple(s for fmt in FORMATS for s in suffixes_of(fmt))


def formats_text() -> str:
    """One line for --help, the README and the error when no dataset file is found."""
    kinds = "; ".join(f"{fmt.label} ({', '.join(fmt.suffixes)})" for fmt in FORMATS)
    compressions = ", ".join(f"{name} ({suffix})" for _, name, suffix in COMPRESSIONS)
    return f"{kinds}; compressed with {compressions}, told by their content"


def format_by_name(path: str) -> str | None:
    name = path.lower()
    for fmt in FORMATS:
        if has_suffix(name, suffixes_of(fmt)):
            return fmt.name
    return None


def compression_by_name(path: str) -> str | None:
    return next((name for _, name, suffix in COMPRESSIONS if path.lower().endswith(suffix)), None)


def compression_of(head: bytes) -> str | None:
    return next((name for magic, name, _ in COMPRESSIONS if head.startswith(magic)), None)


def decompress_head(raw: bytes, compression: str | None) -> bytes:
    """The first decompressed bytes of `raw` (the start of a file); b"" when they do not decompress."""
    import zstandard

    try:
        if compression is None:
            return raw
        if compression == "gzip":
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, _HEAD_BYTES)
        if compression == "bzip2":
            return bz2.BZ2Decompressor().decompress(raw, _HEAD_BYTES)
        if compression == "xz":
            return lzma.LZMADecompressor().decompress(raw, _HEAD_BYTES)
        return zstandard.ZstdDecompressor().decompressobj().decompress(raw)[:_HEAD_BYTES]
    except (OSError, EOFError, zlib.error, lzma.LZMAError, zstandard.ZstdError):
        return b""


def content_format(head: bytes) -> str | None:
    """What the first decompressed bytes show: `jsonl` (an object or an array), `wikipedia` (a
    <mediawiki> root), `binary` (NUL bytes: no text format), or None (text: the name decides)."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text:
        return None
    # JSON only when it parses so: a text file may well start with "[Verse 1]" or "{".
    if text[:1] == b"[" and text[1:].lstrip()[:1] in (b"{", b"]"):
        return "jsonl"
    first_line, newline, _ = text.partition(b"\n")
    if text[:1] == b"{" and (_is_json_object(first_line) or (not newline and text[:2] == b'{"')):
        return "jsonl"
    if text[:1] == b"<" and b"<mediawiki" in text:
        return "wikipedia"
    if b"\x00" in head[:4096]:
        return "binary"
    return None


def _is_json_object(line: bytes) -> bool:
    import orjson

    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        return False


@dataclass(frozen=True)
class Detected:
    """What a file is read as: a format, or `skipped` saying why it is not read; `note` says where
    its content overruled its name."""

    format: str | None
    compression: str | None = None
    note: str | None = None
    skipped: str | None = None


def detect(path: str, configured: str, storage: Storage) -> Detected:
    with storage.open(path) as raw:
        head = raw.read(_HEAD_BYTES)
    compression = compression_of(head)
    named, named_compression = format_by_name(path), compression_by_name(path)
    notes = []
    if compression != named_compression and named is not None and named != "parquet":
        shown = compression or "no compression"
        notes.append(f"named {named_compression or 'uncompressed'}, its content is {shown}")
    if configured != "auto":
        return Detected(configured, compression, "; ".join(notes) or None)
    if head.startswith(PARQUET_MAGIC):
        found = "parquet"
    else:
        found = content_format(decompress_head(head, compression))
    if found == "binary":
        found = None
        if named is None:
            return Detected(None, compression, skipped="binary content, no dataset format")
    if found is not None and named is not None and found != named:
        notes.append(f"named {named}, its content is {found}: read as {found}")
    fmt = found or named
    if fmt is None:
        return Detected(None, compression, skipped="neither its name nor its content is a dataset format")
    return Detected(fmt, compression, "; ".join(notes) or None)
