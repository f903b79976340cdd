"""Drift against the previous snapshot: alerts fire when a bound is crossed, and only then."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from report_run_fixture import config, copy_run, report_run  # noqa: F401 (a fixture)
from stage_fixtures import final_corpus, stage_dir

from corpus_pipeline.cli import main
from corpus_pipeline.config import DriftBounds
from corpus_pipeline.report.drift import Profile, compare, jensen_shannon_bits
from corpus_pipeline.report.write import write_report

TOKENS = "token distribution (JSD, bits)"


def checks(previous: Profile, current: Profile, **bounds) -> dict:
    return {check.name: check for check in compare(previous, current, DriftBounds(**bounds), shown=5)}


def test_share_alerts_fire_only_past_the_bound():
    before = Profile(language_counts={"en": 50, "zh": 50}, domain_counts={"a.org": 10})
    moved = checks(before, Profile(language_counts={"en": 56, "zh": 44}, domain_counts={"a.org": 7}))
    assert moved["language share"].alert and moved["language share"].value == pytest.approx(0.06)
    assert moved["language share"].detail == "en: 50.0% -> 56.0%"
    assert not moved["domain share"].alert and moved["domain share"].value == 0.0  # the same 100%
    steady = checks(before, Profile(language_counts={"en": 52, "zh": 48}, domain_counts={"a.org": 3, "b.org": 1}))
    assert not steady["language share"].alert and steady["domain share"].alert  # a.org 100% -> 75%
    assert [c.key for c in steady["domain share"].changes] == ["a.org", "b.org"]
    new_language = checks(before, Profile(language_counts={"en": 50, "zh": 40, "ja": 10}))
    assert new_language["language share"].alert and new_language["language share"].detail == "ja: 0.0% -> 10.0%"


def test_duplicate_rate_and_token_alerts():
    tokens = {"the": 60, "a": 30, "x": 10}
    before = Profile(duplicate_rate=0.10, token_counts=tokens)
    assert not checks(before, Profile(duplicate_rate=0.11, token_counts=dict(tokens)))["duplicate rate"].alert
    assert checks(before, Profile(duplicate_rate=0.13, token_counts=tokens))["duplicate rate"].alert
    assert checks(before, Profile(duplicate_rate=0.07, token_counts=tokens))["duplicate rate"].alert  # either way
    same = checks(before, Profile(duplicate_rate=0.10, token_counts={"the": 6, "a": 3, "x": 1}))
    assert same[TOKENS].value == 0.0 and not same[TOKENS].alert
    shifted = {"the": 20, "a": 30, "x": 50}
    jsd = jensen_shannon_bits(tokens, shifted)
    assert 0.0 < jsd < 1.0
    assert checks(before, Profile(token_counts=shifted), token_jsd=jsd - 1e-6)[TOKENS].alert
    assert not checks(before, Profile(token_counts=shifted), token_jsd=jsd + 1e-6)[TOKENS].alert
    assert jensen_shannon_bits({"a": 1}, {"b": 1}) == 1.0


def test_figures_a_snapshot_lacks_are_not_measured_not_alerts():
    result = checks(Profile(), Profile(language_counts={"en": 1}, duplicate_rate=0.5, token_counts={"a": 1}))
    assert all(check.value is None and not check.alert for check in result.values())


def test_against_itself_nothing_drifts(report_run, tmp_path):  # noqa: F811
    result = write_report(report_run, config(), previous=report_run, output=tmp_path / "r.html")
    assert len(result.figures.drift) == 4
    assert all(check.value == 0.0 and not check.alert for check in result.figures.drift)
    assert "No drift alert." in result.path.read_text(encoding="utf-8")


def english_only_previous(report_run, target):  # noqa: F811
    """A previous snapshot with only the English documents, half the duplicate rate and its token
    ids shifted by one (another distribution of the same size)."""
    previous = copy_run(report_run, target)
    for part in final_corpus(previous).glob("part-*.parquet"):
        table = pq.read_table(part)
        pq.write_table(table.filter(pc.equal(table.column("language"), "en")), part)
    stats_path = stage_dir(previous, "dedup") / "_stats.json"
    stats = json.loads(stats_path.read_text(encoding="utf-8"))
    stats["docs_in"] *= 2  # the same duplicates among twice the documents: 2.3% instead of 4.5%
    stats_path.write_text(json.dumps(stats), encoding="utf-8")
    manifest = json.loads((previous / "tokens" / "manifest.json").read_text(encoding="utf-8"))
    vocab = manifest["tokenizer"]["vocab_size"]
    for shard in manifest["shards"]:
        path = previous / "tokens" / f"{shard['name']}.bin"
        ids = np.fromfile(path, dtype=manifest["dtype"])
        ((ids.astype(np.int64) + 1) % vocab).astype(manifest["dtype"]).tofile(path)
    return previous


def test_alerts_fire_against_a_shifted_snapshot(report_run, tmp_path, capsys):  # noqa: F811
    previous = english_only_previous(report_run, tmp_path / "previous")
    result = write_report(report_run, config(), previous=previous, output=tmp_path / "r.html")
    by_name = {check.name: check for check in result.figures.drift}
    assert by_name["language share"].alert and by_name["language share"].detail == "en: 100.0% -> 60.0%"
    assert by_name["domain share"].alert
    assert by_name["duplicate rate"].alert and by_name["duplicate rate"].value == pytest.approx(1 / 22 - 1 / 44)
    assert by_name[TOKENS].alert
    html = result.path.read_text(encoding="utf-8")
    assert html.count(">ALERT<") == 4 and "4 drift alert(s)" in html
    # Looser bounds: the same snapshots, no alert.
    loose = ["--set", "report.drift.language_share=0.5", "--set", "report.drift.domain_share=0.5"]
    loose += ["--set", "report.drift.duplicate_rate=0.05", "--set", "report.drift.token_jsd=1.0"]
    args = ["report", str(report_run), "--previous", str(previous), "--output", str(tmp_path / "loose.html")]
    assert main(args + loose) == 0
    assert "drift alert" not in capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out.count("drift alert: ") == 4
