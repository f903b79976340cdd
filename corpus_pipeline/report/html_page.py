"""The report as one static HTML page: inline CSS, inline SVG charts, no script, nothing fetched.

The markup is also well-formed XML (void elements closed, every text escaped), so the tests parse
it strictly. A stage that did not run renders as a "not run" note in its section.
"""

from __future__ import annotations

from html import escape

from corpus_pipeline.report.bars import Bars
from corpus_pipeline.report.collect import RunFigures
from corpus_pipeline.report.drift import DriftCheck
from corpus_pipeline.report.examples import ExampleGroup
from corpus_pipeline.report.funnel import FunnelRow, text_bytes_per_token
from corpus_pipeline.report.histogram import Histogram
from corpus_pipeline.report.source_figures import GroupTable
from corpus_pipeline.report.svg import bar_chart, compact, histogram_chart

STYLE = """
body { font-family: sans-serif; margin: 0 auto; max-width: 1160px; padding: 0 16px 48px; color: #222; }
nav a { margin-right: 12px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: right; vertical-align: top; }
th:first-child, td:first-child, th:last-child, td:last-child { text-align: left; }
figure.plot { display: inline-block; margin: 8px 16px 16px 0; vertical-align: top; max-width: 100%; }
figcaption { font-size: 13px; font-weight: bold; margin-bottom: 4px; }
figure.plot svg { max-width: 100%; height: auto; }
.notes { font-size: 12px; color: #555; max-width: 540px; }
.not-run { color: #8a6d00; background: #fff8e0; padding: 6px 10px; }
.alert, .fail { color: #b00020; font-weight: bold; }
.ok, .pass { color: #1b7a2f; }
.example { border-left: 3px solid #ccc; margin: 6px 0 10px; padding-left: 8px; }
.example .meta { font-size: 12px; color: #555; word-break: break-all; }
.example pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; font-size: 12px; }
"""

SECTIONS = (
    ("funnel", "Funnel"),
    ("languages", "Languages and domains"),
    ("sources", "Sources and mix"),
    ("quality", "Quality signals"),
    ("dedup", "Dedup clusters"),
    ("pii", "PII"),
    ("decontamination", "Decontamination"),
    ("tokens", "Tokens"),
    ("examples", "Examples"),
    ("gates", "Gates"),
    ("diversity", "Diversity"),
    ("drift", "Drift"),
)


def _mb(nbytes: int) -> str:
    return f"{nbytes / 1e6:,.1f}"


def _figure(plot: Bars | Histogram, notes: list[str] = ()) -> str:
    chart = bar_chart(plot) if isinstance(plot, Bars) else histogram_chart(plot)
    notes_html = f'<div class="notes">{escape("; ".join(notes))}</div>' if notes else ""
    # What the chart counts, for a reader's script or test to tell an empty chart from a drawn one.
    kept = f' data-kept="{sum(plot.series.get("kept", [])):g}"' if isinstance(plot, Histogram) else ""
    return (
        f'<figure class="plot" data-drawn="{plot.total:g}"{kept}><figcaption>{escape(plot.title)}</figcaption>'
        f"{chart}{notes_html}</figure>"
    )


def _not_run(stage: str) -> str:
    return f'<p class="not-run">not run: the {escape(stage)} stage did not finish in this run (no _SUCCESS)</p>'


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]], raw: frozenset[int] = frozenset()) -> str:
    """Cells are escaped except the columns in `raw`, which hold markup made here."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{cell if i in raw else escape(cell)}</td>" for i, cell in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _tokens(row: FunnelRow, value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if row.tokens_exact else f"\u2248{compact(round(value))}"


def _funnel(figures: RunFigures) -> str:
    rows = []
    for row in figures.funnel:
        if not row.done:
            rows.append((row.stage, "not run", *("-" * 8)))
            continue
        reasons = ", ".join(f"{reason} {n:,}" for reason, n in row.reasons) or "-"
        rows.append(
            (
                row.stage,
                f"{row.docs_in:,}",
                f"{row.kept:,}",
                f"{row.dropped:,}",
                _mb(row.bytes_in),
                _mb(row.bytes_kept),
                _tokens(row, row.tokens_in),
                _tokens(row, row.tokens_out),
                f"{row.seconds:,.1f}",
                reasons,
            )
        )
    header = ("stage", "docs in", "kept", "dropped", "MB in", "MB kept", "tokens in", "tokens out", "seconds")
    header += ("drop reasons",)
    parts = [_table(header, rows)]
    per_token = text_bytes_per_token(figures.stages["tokenize"])
    if per_token:
        parts.append(
            f"<p>Tokens are exact for tokenize; \u2248 marks estimates from text bytes at the final corpus's "
            f"{per_token:.2f} bytes per token. Extract's MB in are raw payload bytes (HTML), not text.</p>"
        )
    done = [row for row in figures.funnel if row.done]
    if not done:
        parts.append('<p class="not-run">not run: no stage finished in this run</p>')
    else:
        parts.append(_figure(Bars("documents kept after each stage", [(r.stage, float(r.kept)) for r in done])))
        reasons = [(f"{r.stage}: {reason}", float(n)) for r in done for reason, n in r.reasons]
        parts.append(_figure(Bars("documents dropped, by stage and reason", reasons)))
    return "".join(parts)


def _languages(figures: RunFigures) -> str:
    if figures.languages_detected is None:
        parts = [_not_run("langid")]
    else:
        parts = [_figure(figures.languages_detected), _figure(figures.languages_final)]
    for chart in (figures.domains, figures.hosts):
        if chart is not None:
            parts.append(_figure(chart))
    return "".join(parts)


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "-"


def _group_table(table: GroupTable) -> str:
    documents = sum(row.documents for row in table.rows)
    tokens = sum(row.tokens or 0 for row in table.rows)
    rows = [
        (
            row.group,
            f"{row.documents:,}",
            _share(row.documents, documents),
            "-" if row.tokens is None else f"{row.tokens:,}",
            "-" if row.tokens is None else _share(row.tokens, tokens),
        )
        for row in table.rows
    ]
    caption = f"<h4>by {escape(table.column)}</h4>"
    return caption + _table((table.column, "documents", "share", "tokens", "share of tokens"), rows)


def _bound_cell(achieved: float, bound: float | None) -> str:
    if bound is None:
        return "-"
    verdict = '<span class="pass">pass</span>' if achieved >= bound else '<span class="fail">FAIL</span>'
    return f"&gt;= {bound:.1%} {verdict}"


def _mix_table(figures: RunFigures) -> str:
    rows = [
        (
            share.group,
            f"{share.target:.1%}",
            f"{share.achieved:.1%}",
            f"{(share.achieved - share.target) * 100:+.1f}",
            f"{share.repeat_factor:.2f}",
            _bound_cell(share.achieved, figures.min_shares.get(share.group)),
        )
        for share in figures.mix
    ]
    header = ("group", "target", "achieved", "difference (points)", "passes over the group", "nightly bound")
    table = _table(header, rows, raw=frozenset({5}))
    return "<h4>mix: target against achieved share of the shard tokens</h4>" + table


def _source_funnels(figures: RunFigures) -> str:
    """What each source of pipeline.sources ran before the one dedup of them all."""
    rows = [
        (name, row.stage, f"{row.docs_in:,}", f"{row.kept:,}", ", ".join(f"{r} {n:,}" for r, n in row.reasons) or "-")
        for name, funnel in figures.source_funnels.items()
        for row in funnel
    ]
    header = ("source", "stage", "docs in", "kept", "drop reasons")
    return "<h4>each source up to dedup</h4>" + _table(header, rows)


def _sources(figures: RunFigures) -> str:
    if figures.groups is None:
        return '<p class="not-run">not run: no document stage finished</p>'
    tokens_from = figures.groups[0].tokens_from
    note = f"Documents of the final corpus; tokens of the {tokens_from} (text tokens)." if tokens_from else ""
    parts = [_source_funnels(figures)] if figures.source_funnels else []
    parts.append(f"<p>{escape(note or 'Documents of the final corpus; no shards yet.')}</p>")
    parts += [_group_table(table) for table in figures.groups]
    if figures.mix is not None:
        parts.append(_mix_table(figures))
    return "".join(parts)


def _quality(figures: RunFigures) -> str:
    if figures.quality_histograms is None:
        return _not_run("quality")
    parts = [
        "<p>Every document the quality stage saw; dashed lines are the keep rules' default bounds, "
        "per-language bounds are listed under each chart.</p>"
    ]
    parts += [_figure(plot, plot.notes) for plot in figures.quality_histograms]
    if figures.quality_not_computed:
        parts.append(
            f"<p>Not computed (null for every document): {escape(', '.join(figures.quality_not_computed))}</p>"
        )
    return "".join(parts)


def _dedup(figures: RunFigures) -> str:
    if figures.clusters is None:
        return _not_run("dedup")
    dedup = figures.stages["dedup"].stats
    reasons = ", ".join(f"{reason} {n:,}" for reason, n in sorted(dedup.dropped.items())) or "none"
    if figures.duplicate_rate is None:  # no document reached dedup: a normal outcome, said so
        summary = "<p>No documents reached dedup.</p>"
    else:
        summary = (
            f"<p>Duplicate rate {figures.duplicate_rate:.2%}: {sum(dedup.dropped.values()):,} of "
            f"{dedup.docs_in:,} documents dropped ({escape(reasons)}).</p>"
        )
    return summary + _figure(figures.clusters, ["a kept document stands for its cluster; size 1: no duplicate"])


def _pii(figures: RunFigures) -> str:
    if figures.pii is None:
        return _not_run("pii")
    matches, documents = figures.pii
    return _figure(matches, [f"{matches.total:,.0f} matches in all"]) + _figure(documents)


def _decontamination(figures: RunFigures) -> str:
    found = figures.decontamination
    if found is None:
        return _not_run("decontaminate")
    rows = [
        (
            s.name,
            f"{s.items:,}",
            f"{s.documents_hit:,}",
            f"{s.documents_dropped:,}",
            f"{s.spans_removed:,}",
            f"{s.items_found:,} ({s.found_share:.1%})",
            f"{s.items_remaining:,} ({s.remaining_share:.1%})",
        )
        for s in found.sets
    ]
    header = ("eval set", "items", "documents hit", "dropped", "spans removed", "items found", "items still in corpus")
    examples = ExampleGroup("decontaminate", "rejected: contaminated (the match quoted in part)", found.examples)
    return _table(header, rows) + _example_group(examples)


def _token_section(figures: RunFigures) -> str:
    if figures.shards is None:
        return _not_run("tokenize")
    return _figure(figures.shards) + _figure(figures.token_languages) + _figure(figures.top_tokens)


def _example_group(group: ExampleGroup) -> str:
    head = f"<h4>{escape(group.stage)} \u2014 {escape(group.title)}</h4>"
    if not group.examples:
        return head + "<p>none</p>"
    items = []
    for example in group.examples:
        meta = " \u00b7 ".join(x for x in (example.id, example.language, example.url, example.detail) if x)
        fields = f'<div class="meta">metadata: {escape(example.metadata)}</div>' if example.metadata else ""
        items.append(
            f'<div class="example"><div class="meta">{escape(meta)}</div>{fields}'
            f"<pre>{escape(example.text)}</pre></div>"
        )
    return head + "".join(items)


def _examples(figures: RunFigures) -> str:
    if not figures.examples:
        return "<p>No examples (no stage finished, or report.examples_per_rule is 0).</p>"
    note = "<p>Texts and metadata are truncated and PII is replaced by the PII stage's placeholders.</p>"
    return note + "".join(_example_group(group) for group in figures.examples)


def _gates(figures: RunFigures) -> str:
    if figures.gates_error is not None:
        return f'<p class="fail">gates could not be evaluated: {escape(figures.gates_error)}</p>'
    if figures.gates is None:
        return _not_run("quality")
    report = figures.gates
    verdict = '<span class="pass">PASSED</span>' if report.passed else '<span class="fail">FAILED</span>'
    rows = []
    for gate in report.gates:
        value = "-" if gate.value is None else f"{gate.value:.4f}"
        css = {"pass": "pass", "FAIL": "fail"}.get(gate.verdict, "not-run")
        cell = f'<span class="{css}">{gate.verdict}</span>'
        rows.append((gate.language, gate.name, value, gate.bound, cell))
    parts = [f"<p>Gates over {escape(str(report.corpus))} ({report.documents:,} documents): {verdict}</p>"]
    if not report.documents:
        parts.append('<p class="fail">the corpus has no documents</p>')
    parts.append(_table(("language", "gate", "value", "bound", "verdict"), rows, raw=frozenset({4})))
    ungated = [lang for lang, figures_ in report.languages.items() if not figures_["gated"]]
    if ungated:
        parts.append(f"<p>Not gated (too few documents): {escape(', '.join(ungated))}</p>")
    return "".join(parts)


def _diversity(figures: RunFigures) -> str:
    diversity = figures.diversity
    if diversity is None:
        return f'<p class="not-run">{escape(figures.diversity_skipped or "not measured")}</p>'
    parts = [
        f"<p>Topic clusters of a seeded sample of each language/domain group of the final corpus "
        f"(k-means on {escape(diversity.model)} embeddings, {diversity.seconds:,.0f} s). Coverage: the "
        "normalized entropy of the cluster shares, 1 when the sample spreads evenly over every cluster, "
        "0 when one cluster holds it all. Each cluster is named by the start of its most central document.</p>"
    ]
    rows = [
        (group.group, f"{group.documents:,}", f"{group.sampled:,}", str(len(group.clusters)), f"{group.coverage:.3f}")
        for group in diversity.groups
    ]
    parts.append(_table(("group", "documents", "sampled", "clusters", "coverage"), rows))
    for group in diversity.groups:
        clusters = sorted(enumerate(group.clusters), key=lambda item: -item[1].share)
        parts.append(f"<h4>{escape(group.group)}: clusters by share</h4>")
        parts.append(_table(("#", "share", "most central document"), [
            (str(n), f"{topic.share:.1%}", topic.label) for n, topic in clusters
        ]))  # fmt: skip
    if diversity.too_small:
        listed = ", ".join(f"{group} ({n})" for group, n in sorted(diversity.too_small.items()))
        parts.append(f"<p>Not clustered (fewer documents than report.diversity.min_documents): {escape(listed)}</p>")
    return "".join(parts)


def _drift_status(check: DriftCheck) -> str:
    if check.value is None:
        return "not measured"
    return '<span class="alert">ALERT</span>' if check.alert else '<span class="ok">ok</span>'


def _drift(figures: RunFigures) -> str:
    if figures.drift is None:
        return "<p>No previous snapshot given (<code>--previous RUN_DIR</code>): nothing to compare.</p>"
    rows = [
        (
            check.name,
            "-" if check.value is None else f"{check.value:.4f}",
            f"{check.bound:g}",
            _drift_status(check),
            check.detail,
        )
        for check in figures.drift
    ]
    parts = [
        f"<p>Against {escape(str(figures.previous_dir))}.</p>",
        _table(("figure", "change", "bound", "status", "detail"), rows, raw=frozenset({3})),
    ]
    if figures.diversity_skipped:
        parts.append(f"<p>Topic cluster shares: {escape(figures.diversity_skipped)}.</p>")
    for check in figures.drift:
        if check.changes:
            changes = [(c.key, f"{c.previous:.2%}", f"{c.current:.2%}", f"{c.change:+.2%}") for c in check.changes]
            parts.append(f"<h4>{escape(check.name)}: largest changes</h4>")
            parts.append(_table(("", "previous", "current", "change"), changes))
    return "".join(parts)


def _summary(figures: RunFigures) -> str:
    lines = [f"Run directory: {escape(str(figures.run_dir))}."]
    if figures.final_stage:
        final = next(row for row in figures.funnel if row.stage == figures.final_stage)
        lines.append(f"Final corpus: {final.kept:,} documents after {escape(figures.final_stage)}.")
    missing = [row.stage for row in figures.funnel if not row.done]
    if missing:
        lines.append(f"Not run: {escape(', '.join(missing))}.")
    if figures.gates is not None:
        lines.append(
            "Gates: "
            + ('<span class="pass">passed</span>.' if figures.gates.passed else '<span class="fail">FAILED</span>.')
        )
    if figures.drift is not None:
        alerts = figures.alerts
        names = ", ".join(check.name for check in alerts)
        lines.append(
            f'<span class="alert">{len(alerts)} drift alert(s): {escape(names)}.</span>'
            if alerts
            else "No drift alert."
        )
    return "<p>" + " ".join(lines) + "</p>"


def render(figures: RunFigures) -> str:
    renderers = {
        "funnel": _funnel,
        "languages": _languages,
        "sources": _sources,
        "quality": _quality,
        "dedup": _dedup,
        "pii": _pii,
        "decontamination": _decontamination,
        "tokens": _token_section,
        "examples": _examples,
        "gates": _gates,
        "diversity": _diversity,
        "drift": _drift,
    }
    title = f"Run report: {str(figures.run_dir).rpartition('/')[2]}"  # a path or an s3:// URI
    nav = "".join(f'<a href="#{key}">{escape(name)}</a>' for key, name in SECTIONS)
    sections = "".join(
        f'<section id="{key}"><h2>{escape(name)}</h2>{renderers[key](figures)}</section>' for key, name in SECTIONS
    )
    return (
        '<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><meta charset="utf-8"/>'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"/><title>{escape(title)}</title>'
        f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>{_summary(figures)}<nav>{nav}</nav>"
        f"{sections}</body></html>\n"
    )
