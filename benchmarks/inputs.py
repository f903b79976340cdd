"""Benchmark inputs derived from the real pages, built once per run in its temporary folder.

- pages.warc.gz split into N WARC files of whole records (the stage runs one task per file, so
  Spark needs several files to use both cores): each record's gzip member is copied byte for byte,
  round-robin, so the parts hold the same records and bytes and are balanced.
- the documents extracted from those files by the extract stage (the langid input), run once
  through the engine and reused: the engine skips a stage already done for the same input.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from common import PAGES_WARC
from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage

WARC_PARTS = 8
QUICK_RECORDS = 160  # --quick: the first 160 records (20 per part)


@dataclass
class WarcInput:
    parts: list[str]
    records: int
    html_bytes: int  # HTTP payload bytes of the response records (the HTML the stage decodes)


def split_warc(source: Path, out_dir: Path, parts: int = WARC_PARTS, limit: int | None = None) -> WarcInput:
    """Split once per run folder; later calls read back what the first one wrote."""
    manifest = out_dir / "split.json"
    if manifest.exists():
        return WarcInput(**json.loads(manifest.read_text()))
    out_dir.mkdir(parents=True, exist_ok=True)
    members: list[tuple[int, int]] = []
    html_bytes = 0
    with open(source, "rb") as stream:
        iterator = ArchiveIterator(stream)
        for record in iterator:
            if limit is not None and len(members) >= limit:
                break
            payload = record.content_stream().read()
            if record.rec_type == "response":
                html_bytes += len(payload)
            # offset and length of this record's gzip member, known once the record is read
            members.append((iterator.get_record_offset(), iterator.get_record_length()))
        paths = [out_dir / f"pages-{i:02d}.warc.gz" for i in range(parts)]
        outs = [open(path, "wb") for path in paths]  # noqa: SIM115 - closed below
        try:
            for index, (offset, length) in enumerate(members):
                stream.seek(offset)
                outs[index % parts].write(stream.read(length))
        finally:
            for out in outs:
                out.close()
    split = WarcInput([str(p) for p in paths], len(members), html_bytes)
    manifest.write_text(json.dumps(asdict(split)))
    return split


def pages_input(work: Path, quick: bool) -> WarcInput:
    """pages.warc.gz (or, quick, its first records) as WARC_PARTS files in the run folder."""
    return split_warc(PAGES_WARC, work / "warc-parts", limit=QUICK_RECORDS if quick else None)


def extracted_docs(warc: WarcInput, work: Path, config: PipelineConfig) -> Path:
    """The extract stage's output for these WARC parts (run locally once; skipped if already done)."""
    output = work / "docs"
    run_stage("extract", warc.parts, output, config, LocalExecutor())
    return output
