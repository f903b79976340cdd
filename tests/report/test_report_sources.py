"""The report's sources section and the mix drift: documents and tokens per source, domain and
language (tokens from mix's documents.parquet or tokenize's counts), target against achieved
shares, and an alert when a group's share moves more than report.drift.mix_share."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
from stage_fixtures import real_documents, stage_dir, write_stage

from corpus_pipeline.config import DriftBounds
from corpus_pipeline.report.collect import RunFigures
from corpus_pipeline.report.drift import Profile, compare
from corpus_pipeline.report.html_page import _points, _sources
from corpus_pipeline.report.run_dir import read_stage
from corpus_pipeline.report.source_figures import group_tables, mix_shares
from corpus_pipeline.stats import StageStats
from corpus_pipeline.tokenize.shard_task import TOKEN_COUNTS_DIR

MANIFEST_MIX = {
    "groups": {
        "news": {"target": 0.3, "achieved": 0.297, "repeat_factor": 1.6},
        "web": {"target": 0.7, "achieved": 0.703, "repeat_factor": 0.4},
    }
}


def _corpus(tmp_path):
    """40 English documents from the web, 40 Chinese from news (domain news); 2 web ones unlabelled."""
    rows = real_documents(english=40, chinese=40)
    for number, row in enumerate(rows):
        row.update(source="web" if row["language"] == "en" else "news", domain=None if number < 2 else row["language"])
    return rows, read_stage(write_stage(stage_dir(tmp_path, "quality"), rows), "quality")


def _tokens_dir(tmp_path, name: str):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "_SUCCESS").write_text("{}")
    (folder / "_stats.json").write_text(json.dumps(StageStats(name).to_dict()))
    return folder


def test_documents_per_source_domain_and_language_and_tokens_from_mix_repeats_included(tmp_path):
    rows, final = _corpus(tmp_path)
    mix = _tokens_dir(tmp_path, "mix")
    # In the shards: every news document twice (a second pass), the first ten web ones once.
    shard_rows = [r for r in rows if r["source"] == "news"] * 2 + [r for r in rows if r["source"] == "web"][:10]
    table = pa.table({c: [r[c] for r in shard_rows] for c in ("id", "source", "domain", "language")})
    pq.write_table(
        table.append_column("token_count", pa.array([100] * len(shard_rows), pa.int64())), mix / "documents.parquet"
    )

    source, domain, language = group_tables(final, read_stage(mix, "mix"))
    assert [(r.group, r.documents, r.tokens) for r in source.rows] == [("news", 40, 8000), ("web", 40, 1000)]
    assert [(r.group, r.documents) for r in domain.rows] == [("zh", 40), ("en", 38), ("(none)", 2)]
    assert [r.group for r in language.rows] == ["en", "zh"] and source.tokens_from == "mix shards, repeats included"


def test_tokens_come_from_tokenize_counts_joined_by_id_without_a_mix(tmp_path):
    rows, final = _corpus(tmp_path)
    tokenize = _tokens_dir(tmp_path, "tokens")
    (tokenize / TOKEN_COUNTS_DIR).mkdir()
    counts = pa.table(
        {"id": [r["id"] for r in rows], "token_count": pa.array([len(r["text"]) for r in rows], pa.int64())}
    )
    pq.write_table(counts, tokenize / TOKEN_COUNTS_DIR / "part-00000.parquet")

    source = group_tables(final, read_stage(tokenize, "tokenize"))[0]
    expected = {s: sum(len(r["text"]) for r in rows if r["source"] == s) for s in ("news", "web")}
    assert {r.group: r.tokens for r in source.rows} == expected and source.tokens_from == "tokenize shards"
    assert all(r.tokens is None for r in group_tables(final, None)[0].rows)


def test_the_section_shows_target_against_achieved_shares(tmp_path):
    _, final = _corpus(tmp_path)
    mix = mix_shares({"mix": MANIFEST_MIX})
    figures = RunFigures(tmp_path, {}, [], groups=group_tables(final, None), mix=mix, min_shares={"news": 0.3})
    html = _sources(figures)
    assert (
        '<td>news</td><td>30.0%</td><td>29.7%</td><td>-0.3</td><td>1.60</td><td>&gt;= 30.0% <span class="fail">' in html
    )
    assert "<td>web</td><td>70.0%</td><td>70.3%</td><td>+0.3</td><td>0.40</td><td>-</td>" in html
    assert "no shards yet" in html


def test_a_difference_that_rounds_to_zero_is_plus_zero_never_minus_zero():
    assert [_points(d) for d in (-0.0004, 0.0004, -0.003, 0.0)] == ["+0.0", "+0.0", "-0.3", "+0.0"]


def test_a_mix_share_that_moves_more_than_its_bound_raises_an_alert():
    previous = Profile(mix_shares={"code": 0.10, "web": 0.90})
    checks = {c.name: c for c in compare(previous, Profile(mix_shares={"code": 0.05, "web": 0.95}), DriftBounds(), 5)}
    assert checks["mix share"].alert and checks["mix share"].detail == "code: 10.0% -> 5.0%"
    steady = {c.name: c for c in compare(previous, Profile(mix_shares={"code": 0.09, "web": 0.91}), DriftBounds(), 5)}
    assert not steady["mix share"].alert  # 1 point, under the 2-point default
    assert "mix share" not in {c.name for c in compare(Profile(), Profile(), DriftBounds(), 5)}
