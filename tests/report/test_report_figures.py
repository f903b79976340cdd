"""The report's figures, computed from a small real run directory, agree with what the stages wrote."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
from report_run_fixture import ENGLISH_ARTICLES, config, copy_run, report_run  # noqa: F401 (a fixture)
from stage_fixtures import final_corpus, stage_dir

from corpus_pipeline.report.bars import Bars
from corpus_pipeline.report.collect import collect
from corpus_pipeline.report.funnel import funnel_rows, text_bytes_per_token
from corpus_pipeline.report.quality_figures import signal_bounds
from corpus_pipeline.report.run_dir import STAGES, StageRun
from corpus_pipeline.stats import StageStats


def stage_stats(run_dir, name: str) -> dict:
    return json.loads((stage_dir(run_dir, name) / "_stats.json").read_text(encoding="utf-8"))


def test_funnel_counts_are_the_stats_files(report_run):  # noqa: F811
    figures = collect(report_run, config())
    # The run extracts WARC files and tokenizes: ingest and mix, which stand in for those, are not
    # listed, nor is embed, opt-in and not enabled.
    ran = [name for _, name in STAGES if name not in ("ingest", "mix", "embed")]
    assert [row.stage for row in figures.funnel] == ran
    for name, row in zip(ran, figures.funnel, strict=True):
        stats = stage_stats(report_run, name)
        assert row.done
        assert (row.docs_in, row.kept, row.bytes_in, row.bytes_kept) == (
            stats["docs_in"],
            stats["kept"],
            stats["bytes_in"],
            stats["bytes_kept"],
        )
        assert dict(row.reasons) == stats["dropped"] and row.dropped == sum(stats["dropped"].values())
    by_stage = {row.stage: row for row in figures.funnel}
    assert by_stage["extract"].reasons == [("not_a_document", 2)]
    assert by_stage["langid"].reasons == [("language_not_allowed", 1)]
    assert by_stage["dedup"].reasons == [("exact_duplicate", 1)]
    tokens = stage_stats(report_run, "tokenize")["extra"]["tokens"]["text"]
    assert by_stage["tokenize"].tokens_exact and by_stage["tokenize"].tokens_out == tokens
    # Estimates: text bytes at the final corpus's bytes per token, so quality's output matches exactly.
    assert by_stage["quality"].tokens_out == tokens and by_stage["extract"].tokens_in is None


def test_language_domain_and_cluster_figures(report_run):  # noqa: F811
    figures = collect(report_run, config())
    assert stage_dir(report_run, figures.final_stage) == final_corpus(report_run)
    assert dict(figures.languages_detected.items) == stage_stats(report_run, "langid")["extra"]["languages"]
    final = pq.read_table(final_corpus(report_run), columns=["language", "url"]).to_pylist()
    languages = {}
    for row in final:
        languages[row["language"]] = languages.get(row["language"], 0) + 1
    assert dict(figures.languages_final.items) == languages and languages["en"] == ENGLISH_ARTICLES
    domains = dict(figures.hosts.items)  # URL hosts; figures.domains is the domain column
    assert domains["en.example.org"] == ENGLISH_ARTICLES  # www. folded into the host
    assert "example.fr" not in domains  # its page was rejected by langid
    assert sum(domains.values()) == len(final)
    # 21 kept by dedup: one stands for the article and its copy, 20 for themselves.
    assert figures.clusters.items == [("1", 20.0), ("2", 1.0)]
    assert figures.duplicate_rate == 1 / 22


def test_quality_histograms_count_every_document_with_the_rule_bounds(report_run):  # noqa: F811
    figures = collect(report_run, config())
    stats = stage_stats(report_run, "quality")
    plots = {plot.title: plot for plot in figures.quality_histograms}
    word_count = plots["gopher_word_count"]
    assert sum(word_count.series["kept"]) == stats["kept"]
    assert sum(word_count.series["rejected"]) == sum(stats["dropped"].values())
    assert ("min (gopher_word_count)", 50.0) in word_count.thresholds
    assert any(note.startswith("zh: min 80") for note in word_count.notes)
    assert plots["gopher_bullet_lines_frac"].thresholds == [("max (gopher_bullet_lines_frac)", 0.9)]
    assert "quality_classifier_score" in figures.quality_not_computed  # no classifier configured
    assert "dup_content_hash" not in plots
    # A signal that is 0 for every document is named, not drawn as one bar at 0.
    assert figures.quality_all_zero and not set(figures.quality_all_zero) & set(plots)
    assert all(any(any(counts) for counts in plot.series.values()) for plot in plots.values())
    assert not any(set(plot.edges) <= {-0.5, 0.5} for plot in plots.values())


def test_signal_bounds_follow_the_config():
    settings = config().quality.model_copy(deep=True)
    lines, notes = signal_bounds(settings, "gopher_mean_word_length")
    assert lines == [("min (gopher_mean_word_length)", 3.0), ("max (gopher_mean_word_length)", 10.0)]
    assert "zh: rule off" in notes and "ko: min 1.5" in notes


def test_pii_and_token_figures(report_run):  # noqa: F811
    figures = collect(report_run, config())
    matches, documents = figures.pii
    assert dict(matches.items)["email"] == 1 and dict(matches.items)["phone"] == 1
    assert dict(documents.items)["card"] == 0  # looked for, not found: still shown
    manifest = json.loads((report_run / "tokens" / "manifest.json").read_text(encoding="utf-8"))
    assert isinstance(figures.shards, Bars)
    assert figures.shards.items == [(s["name"], float(s["tokens"])) for s in manifest["shards"]]
    by_language = stage_stats(report_run, "tokenize")["extra"]["tokens_by_language"]
    assert dict(figures.token_languages.items) == by_language
    # The unigram distribution counts every text token of the shards (end-of-document tokens left out).
    assert sum(figures.profile.token_counts.values()) == manifest["tokens"] - manifest["documents"]
    top = figures.top_tokens.items
    assert len(top) == 20 and all(a[1] >= b[1] for a, b in zip(top, top[1:], strict=False))
    shard = np.fromfile(report_run / "tokens" / f"{manifest['shards'][0]['name']}.bin", dtype=manifest["dtype"])
    assert top[0][1] == np.bincount(shard)[1:].max()  # id 0 is the end-of-document token


def test_examples_per_reason_and_borderline_kept(report_run):  # noqa: F811
    figures = collect(report_run, config())
    titles = [(group.stage, group.title) for group in figures.examples]
    assert ("langid", "rejected: language_not_allowed") in titles
    assert ("quality", "rejected: gopher_bullet_lines_frac") in titles
    assert ("quality", "kept nearest the bound of gopher_bullet_lines_frac") in titles
    assert all(len(group.examples) <= 2 for group in figures.examples)
    borderline = next(g for g in figures.examples if g.title == "kept nearest the bound of gopher_bullet_lines_frac")
    assert borderline.examples and all(e.detail.startswith("gopher_bullet_lines_frac=") for e in borderline.examples)


def test_the_funnel_counts_tokens_from_mix_when_mix_made_the_shards(tmp_path):
    """The demo's funnel: tokenize "not needed", mix wrote the shards (its tokens used to show "-")."""
    quality = StageStats("quality", docs_in=900, bytes_in=6_000_000, kept=800, bytes_kept=5_000_000)
    mix = StageStats("mix", docs_in=800, bytes_in=5_000_000, kept=800, bytes_kept=5_000_000)
    mix.count("input_tokens", "text", 1_250_000)
    mix.count("tokens", "shard", 3_000_800)  # repeats counted, one end-of-document token per sequence
    mix.count("tokens", "end_of_document", 800)
    stages = {
        "quality": StageRun("quality", tmp_path, quality),
        "tokenize": StageRun("tokenize", tmp_path, None),
        "mix": StageRun("mix", tmp_path, mix),
    }
    assert text_bytes_per_token(stages) == 4.0
    rows = {row.stage: row for row in funnel_rows(stages)}
    assert (rows["mix"].tokens_in, rows["mix"].tokens_out, rows["mix"].tokens_exact) == (1_250_000, 3_000_000, True)
    assert (rows["quality"].tokens_in, rows["quality"].tokens_out) == (1_500_000, 1_250_000)


def test_the_funnel_starts_with_the_crawl_its_run_record_names(report_run, tmp_path):  # noqa: F811
    """The crawl lives under <data_root>/crawl/, outside the run directory; the record names it as the
    run was given it (here relative to the folder the run started in, data_root `data`)."""
    run_dir = copy_run(report_run, tmp_path / "data" / "runs" / "r1")
    crawl = tmp_path / "data" / "crawl" / "r1"
    crawl.mkdir(parents=True)
    stats = StageStats("crawl", docs_in=480, bytes_in=13_000_000, kept=474, bytes_kept=13_000_000, seconds=6.2)
    stats.count_dropped("robots_blocked", 6)
    stats.write(crawl / "_stats.json")
    (crawl / "_SUCCESS").write_text(json.dumps({"stage": "crawl"}))
    steps = [{"step": "crawl", "status": "ran", "output": "data/crawl/r1"}, {"step": "extract", "status": "ran"}]
    (run_dir / "run_record.json").write_text(json.dumps({"run_dir": str(run_dir), "steps": steps}))
    first = collect(run_dir, config()).funnel[0]
    assert (first.stage, first.docs_in, first.kept, first.reasons) == ("crawl", 480, 474, [("robots_blocked", 6)])
    assert first.tokens_in is None and first.tokens_out is None  # WARC bytes: no token estimate
