"""`corpus-pipeline shards verify DIR`: everything a trainer relies on, checked against the bytes.

Per shard: the .idx header (magic, version, dtype code = the manifest's dtype), the .idx size its
counts imply, one sequence per document, pointers that start at 0 and advance by each length, the
.bin size the index implies, the manifest's counts and sizes, every id under the vocabulary size,
exactly one end-of-document token per document and at its end, and both files' sha256. Plus the
tokenizer's sha256 and shard files the manifest does not list. Each fault names the shard (file)
and what is wrong; the .bin is read once, in 16 MiB chunks (sha256 and token checks together).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.bpe import UINT16_IDS, file_sha256
from corpus_pipeline.tokenize.indexed_dataset import CODE_OF_DTYPE, ShardFormatError, read_index
from corpus_pipeline.tokenize.manifest import TOKENIZER_FILE, ManifestError, read_manifest

_CHUNK_TOKENS = 8 * 2**20


@dataclass
class VerifyReport:
    directory: Path
    shards: int = 0
    documents: int = 0
    tokens: int = 0
    faults: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults

    def fault(self, where: str, message: str) -> None:
        self.faults.append(f"{where}: {message}")

    def format(self) -> str:
        head = f"{self.directory}: {self.shards} shards, {self.documents:,} documents, {self.tokens:,} tokens"
        if self.ok:
            return f"{head}: OK"
        return "\n".join([f"{head}: {len(self.faults)} fault(s)", *(f"  {fault}" for fault in self.faults)])


def _check_index(report: VerifyReport, name: str, index, entry: dict, dtype: np.dtype) -> bool:
    """Index checks; False when the .bin cannot be read against this index."""
    where = f"{name}.idx"
    if index.dtype != dtype:
        report.fault(where, f"dtype {index.dtype} (code {CODE_OF_DTYPE[index.dtype.name]}), the manifest says {dtype}")
        return False
    if index.sequences != index.documents or not np.array_equal(
        index.document_indices, np.arange(index.documents + 1, dtype=np.int64)
    ):
        report.fault(where, "document indices are not 0..N (one sequence per document)")
    if len(index.lengths) and int(index.lengths.min()) < 1:
        report.fault(where, f"sequence {int(np.argmin(index.lengths))} has length {int(index.lengths.min())}")
        return False
    expected = np.zeros(index.sequences, dtype=np.int64)
    np.cumsum(index.lengths[:-1], dtype=np.int64, out=expected[1:])
    expected *= dtype.itemsize
    wrong = np.flatnonzero(index.pointers != expected)
    if len(wrong):
        first = int(wrong[0])
        report.fault(
            where,
            f"{len(wrong):,} pointer(s) inconsistent with the lengths; first: sequence {first} at byte "
            f"{int(index.pointers[first]):,}, expected {int(expected[first]):,}",
        )
        return False
    for key, actual in (("documents", index.documents), ("tokens", index.tokens)):
        if entry[key] != actual:
            report.fault(where, f"{actual:,} {key}, the manifest says {entry[key]:,}")
    return True


def _scan_bin(report: VerifyReport, name: str, path: Path, index, dtype: np.dtype, eod: int, vocab: int) -> str:
    """One pass over .bin: ids and end-of-document positions checked, sha256 returned."""
    ends = np.cumsum(index.lengths, dtype=np.int64) - 1  # where each document's EOD must be
    digest = hashlib.sha256()
    position = 0
    bad_ids = wrong_eod = 0
    with open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK_TOKENS * dtype.itemsize):
            digest.update(chunk)
            tokens = np.frombuffer(chunk, dtype=dtype)
            out_of_range = np.flatnonzero((tokens >= vocab) | (tokens < 0))
            if len(out_of_range) and not bad_ids:
                at = int(out_of_range[0])
                report.fault(
                    f"{name}.bin", f"token {position + at:,} has id {int(tokens[at])}, not < vocab size {vocab:,}"
                )
            bad_ids += len(out_of_range)
            found = np.flatnonzero(tokens == eod) + position
            lo, hi = np.searchsorted(ends, [position, position + len(tokens)])
            expected = ends[lo:hi]
            if not np.array_equal(found, expected) and not wrong_eod:
                report.fault(f"{name}.bin", _eod_fault(found, expected, index))
            wrong_eod += not np.array_equal(found, expected)
            position += len(tokens)
    return digest.hexdigest()


def _eod_fault(found: np.ndarray, expected: np.ndarray, index) -> str:
    """The first misplaced or missing end-of-document token of a chunk, by position."""
    missing = np.setdiff1d(expected, found)
    extra = np.setdiff1d(found, expected)
    starts = np.asarray(index.pointers) // np.dtype(index.dtype).itemsize
    first_missing = int(missing[0]) if len(missing) else None
    first_extra = int(extra[0]) if len(extra) else None
    if first_extra is None or (first_missing is not None and first_missing < first_extra):
        document = int(np.searchsorted(starts, first_missing, side="right") - 1)
        return f"document {document} does not end with the end-of-document token (token {first_missing:,})"
    document = int(np.searchsorted(starts, first_extra, side="right") - 1)
    return f"document {document} holds an end-of-document token before its end (token {first_extra:,})"


def verify_shards(directory: str | Path, checksums: bool = True) -> VerifyReport:
    directory = Path(directory)
    report = VerifyReport(directory)
    try:
        manifest = read_manifest(directory, Storage())  # a local directory (shards verify copies a store's first)
    except ManifestError as error:
        report.fault("manifest.json", str(error))
        return report
    dtype = np.dtype(manifest["dtype"])
    vocab = manifest["tokenizer"]["vocab_size"]
    eod = manifest["tokenizer"]["eod_id"]
    if CODE_OF_DTYPE.get(dtype.name) != manifest["dtype_code"]:
        report.fault("manifest.json", f"dtype {dtype} does not have code {manifest['dtype_code']}")
    if dtype == np.uint16 and vocab > UINT16_IDS:
        report.fault("manifest.json", f"vocabulary of {vocab:,} ids does not fit {dtype}")
    tokenizer = directory / TOKENIZER_FILE
    if not tokenizer.exists():
        report.fault(TOKENIZER_FILE, "missing")
    elif checksums and file_sha256(tokenizer) != manifest["tokenizer"]["sha256"]:
        report.fault(TOKENIZER_FILE, "sha256 differs from the manifest")
    names = [entry["name"] for entry in manifest["shards"]]
    listed = {f"{name}{suffix}" for name in names for suffix in (".bin", ".idx")}
    pattern = re.compile(rf"{re.escape(manifest['prefix'])}_\d{{5}}\.(bin|idx)$")
    for path in sorted(directory.iterdir()):
        if pattern.match(path.name) and path.name not in listed:
            report.fault(path.name, "a shard file the manifest does not list")
    for entry in manifest["shards"]:
        _verify_shard(report, directory, entry, dtype, eod, vocab, checksums)
    report.shards = len(names)
    if report.documents != manifest["documents"] or report.tokens != manifest["tokens"]:
        report.fault(
            "manifest.json",
            f"totals {manifest['documents']:,} documents / {manifest['tokens']:,} tokens, "
            f"the shards hold {report.documents:,} / {report.tokens:,}",
        )
    return report


def _verify_shard(report, directory: Path, entry: dict, dtype, eod: int, vocab: int, checksums: bool) -> None:
    name = entry["name"]
    bin_path, idx_path = directory / f"{name}.bin", directory / f"{name}.idx"
    for path in (bin_path, idx_path):
        if not path.exists():
            report.fault(path.name, "missing")
    if not (bin_path.exists() and idx_path.exists()):
        return
    try:
        index = read_index(idx_path)
    except ShardFormatError as error:
        report.fault(idx_path.name, str(error).removeprefix(f"{idx_path.name}: "))
        return
    report.documents += index.documents
    report.tokens += index.tokens
    if idx_path.stat().st_size != entry["idx_bytes"]:
        report.fault(idx_path.name, f"{idx_path.stat().st_size:,} bytes, the manifest says {entry['idx_bytes']:,}")
    if not _check_index(report, name, index, entry, dtype):
        return
    size, expected = bin_path.stat().st_size, index.tokens * dtype.itemsize
    if size != expected:
        state = "truncated" if size < expected else "longer than its index"
        report.fault(bin_path.name, f"{state}: {size:,} bytes, the index implies {expected:,}")
        return
    if entry["bin_bytes"] != size:
        report.fault(bin_path.name, f"{size:,} bytes, the manifest says {entry['bin_bytes']:,}")
    bin_sha = _scan_bin(report, name, bin_path, index, dtype, eod, vocab)
    if checksums:
        if bin_sha != entry["bin_sha256"]:
            report.fault(bin_path.name, "sha256 differs from the manifest (the bytes changed after writing)")
        if file_sha256(idx_path) != entry["idx_sha256"]:
            report.fault(idx_path.name, "sha256 differs from the manifest (the bytes changed after writing)")
