"""A 10 MB document is tokenized in bounded memory and comes back whole.

Measured on this machine: `encode_batch_fast` on the whole 10 MB text peaks 1.25 GB above the
baseline (per-token offsets and strings); the whole stage, which encodes it in 100,000-character
pieces, 86 MB. The test runs the stage in a fresh process so its peak RSS is its own.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap

import pytest
import shards_fixtures
from conftest import PROJECT_ROOT
from shards_fixtures import write_stage
from text_sources import chinese_text, english_text

from corpus_pipeline.document import document_id, empty_document

pytestmark = pytest.mark.slow  # a child process tokenizing 10 MB, its memory sampled: ~17 s

# Session fixtures shared by the tokenize tests (pytest finds them as module attributes).
corpus_dir = shards_fixtures.corpus_dir
tokenizer_path = shards_fixtures.tokenizer_path

TEN_MB = 10_000_000
PEAK_LIMIT_MB = 300

RUN_STAGE = textwrap.dedent(
    """
    import hashlib, json, resource, sys
    from pathlib import Path
    from corpus_pipeline.config import PipelineConfig
    from corpus_pipeline.engine.exec.local import LocalExecutor
    from corpus_pipeline.tokenize.bpe import load_tokenizer
    from corpus_pipeline.tokenize.reader import TokenShards
    from corpus_pipeline.stage_runner import run_stage

    source, tokenizer, output = map(Path, sys.argv[1:4])
    load_tokenizer(str(tokenizer)).encode("warm up")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    result = run_stage("tokenize", source, output, PipelineConfig(), LocalExecutor(), tokenizer=tokenizer)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    shards = TokenShards(output)
    text = load_tokenizer(str(tokenizer)).decode(shards.document(0).tolist())
    digest = hashlib.sha256(text.encode()).hexdigest()
    print(json.dumps({"growth_mb": peak - before, "tokens": shards.num_tokens, "text_sha256": digest,
                      "repairs": result.stats.extra.get("repairs", {})}))
    """
)


def ten_megabytes_of_text() -> str:
    english = english_text()[:2_000_000]
    chinese = chinese_text()[:1_000_000]
    unit = (english + chinese).encode()
    data = (unit * (TEN_MB // len(unit) + 1))[:TEN_MB]
    return data.decode("utf-8", errors="ignore")


def test_ten_megabyte_document_in_bounded_memory(tmp_path, tokenizer_path):
    text = ten_megabytes_of_text()
    row = empty_document(id=document_id("https://big.example/", text), text=text, language="en")
    source = write_stage(tmp_path / "in", [row], parts=1)
    completed = subprocess.run(
        [sys.executable, "-c", RUN_STAGE, str(source), str(tokenizer_path), str(tmp_path / "tokens")],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    report = json.loads(completed.stdout.splitlines()[-1])
    assert report["text_sha256"] == hashlib.sha256(text.encode()).hexdigest(), "the document comes back whole"
    assert report["repairs"]["long_documents"] == 1 and "hard_cuts" not in report["repairs"]
    print(f"peak RSS growth {report['growth_mb']:.0f} MB, {report['tokens']:,} tokens")
    assert report["growth_mb"] < PEAK_LIMIT_MB, f"peak grew {report['growth_mb']:.0f} MB for a 10 MB document"
