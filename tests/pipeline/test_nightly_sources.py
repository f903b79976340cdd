"""The nightly over pipeline.sources with a mix: a night whose share of a source falls under its
bound (nightly.min_shares) does not publish; the same night with a bound it meets publishes, and a
night after it with nothing new in any source does nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import shared_data
from multi_source_inputs import WEB, write_sources
from pipeline_inputs import small_run_overrides

from corpus_pipeline import exit_codes
from corpus_pipeline.config import load_config
from corpus_pipeline.pipeline.nightly import NightlyLayout, run_nightly
from corpus_pipeline.pipeline.snapshots import current_snapshot
from corpus_pipeline.storage import Storage

pytestmark = pytest.mark.spark


def _night(data_root, *overrides: str) -> int:
    folder = data_root / "inputs"  # written once: a rewritten file is a new input
    paths = write_sources(folder) if not folder.exists() else {"web": shared_data(WEB), "news": folder / "news.jsonl"}
    sources = (
        f"pipeline.sources=[{{name: web, kind: warc, paths: ['{paths['web']}']}},"
        f" {{name: news, kind: jsonl, paths: ['{paths['news']}'], domain: news}}]"
    )
    config = load_config(
        None,
        [
            *small_run_overrides(data_root),
            sources,
            "quality.gates.min_documents=100000",
            "mix.targets={news: 0.8, web: 0.2}",
            *overrides,
        ],
    )
    return run_nightly(config, "local", log=lambda line: None)


def test_a_night_under_a_share_bound_publishes_nothing_and_one_within_it_publishes(spark, tmp_path):
    layout = NightlyLayout(tmp_path)

    assert _night(tmp_path, "nightly.min_shares={web: 0.3}") == exit_codes.GATE_FAILED
    [refused] = [json.loads(line) for line in layout.history.read_text().splitlines()]
    assert refused["status"] == "gate_failed" and current_snapshot(layout.corpus, Storage()) is None
    assert re.fullmatch(r"mix share of web (19|20)\.\d% < bound 30\.0%", refused["reason"])
    record = json.loads((tmp_path / "runs" / refused["run_id"] / "run_record.json").read_text())
    assert record["nightly"]["published"] is False and record["nightly"]["new_inputs_by_source"] == {
        "web": 1,
        "news": 1,
    }

    assert _night(tmp_path, "nightly.min_shares={web: 0.15}") == exit_codes.SUCCESS
    snapshot = current_snapshot(layout.corpus, Storage())
    [increment] = snapshot.info["increments"]
    manifest = json.loads((Path(increment["tokens_dir"]) / "manifest.json").read_text())
    assert abs(manifest["mix"]["groups"]["web"]["achieved"] - 0.2) < 0.01
    assert len(snapshot.processed_inputs()) == 2  # the WARC and the JSON lines file

    assert _night(tmp_path) == exit_codes.NOTHING_NEW


def test_share_bounds_without_a_mix_are_refused_before_anything_runs(tmp_path):
    config = load_config(None, [f"data_root={tmp_path}", "nightly.min_shares={code: 0.05}"])
    assert run_nightly(config, "local", log=lambda line: None) == exit_codes.USAGE  # refused before anything ran
    history = NightlyLayout(tmp_path).history.read_text()
    assert "nightly.min_shares bounds mix shares: set mix.targets" in history
