"""The report as one static HTML page: inline CSS, inline SVG charts, no script, nothing fetched.

The markup is also well-formed XML (void elements closed, every text escaped), so the tests parse
it strictly. A stage that did not run renders as a "not run" note in its section.
"""

from __future__ import annotations

from html import escape

from corpus_pipeline.report.bars import Bars
from corpus_pipeline.report.collect import RunFigures
from corpus_pipeline.report.examples import ExampleGroup
from corpus_pipeline.report.funnel import FunnelRow, text_bytes_per_token
from corpus_pipeline.report.html_blocks import figure, mb, not_run, table
from corpus_pipeline.report.html_corpus import (
    diversity_section,
    drift_section,
    example_group,
    examples_section,
    gates_section,
)
from corpus_pipeline.report.html_training import training_section
from corpus_pipeline.report.source_figures import GroupTable
from corpus_pipeline.report.svg import compact

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
    ("training", "Training health"),
    ("diversity", "Diversity"),
    ("drift", "Drift"),
)


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
                mb(row.bytes_in),
                mb(row.bytes_kept),
                _tokens(row, row.tokens_in),
                _tokens(row, row.tokens_out),
                f"{row.seconds:,.1f}",
                reasons,
            )
        )
    header = ("stage", "docs in", "kept", "dropped", "MB in", "MB kept", "tokens in", "tokens out", "seconds")
    header += ("drop reasons",)
    parts = [table(header, rows)]
    per_token = text_bytes_per_token(figures.stages)
    if per_token:
        parts.append(
            "<p>Tokens are exact for tokenize and mix (out: the shards', repeats counted); \u2248 marks "
            f"estimates from text bytes at the final corpus's "
            f"{per_token:.2f} bytes per token. Extract's MB in are raw payload bytes (HTML), not text.</p>"
        )
    done = [row for row in figures.funnel if row.done]
    if not done:
        parts.append('<p class="not-run">not run: no stage finished in this run</p>')
    else:
        parts.append(figure(Bars("documents kept after each stage", [(r.stage, float(r.kept)) for r in done])))
        reasons = [(f"{r.stage}: {reason}", float(n)) for r in done for reason, n in r.reasons]
        parts.append(figure(Bars("documents dropped, by stage and reason", reasons)))
    return "".join(parts)


def _languages(figures: RunFigures) -> str:
    if figures.languages_detected is None:
        parts = [not_run("langid")]
    else:
        parts = [figure(figures.languages_detected), figure(figures.languages_final)]
    for chart in (figures.domains, figures.hosts):
        if chart is not None:
            parts.append(figure(chart))
    return "".join(parts)


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "-"


def _group_table(groups: GroupTable) -> str:
    documents = sum(row.documents for row in groups.rows)
    tokens = sum(row.tokens or 0 for row in groups.rows)
    rows = [
        (
            row.group,
            f"{row.documents:,}",
            _share(row.documents, documents),
            "-" if row.tokens is None else f"{row.tokens:,}",
            "-" if row.tokens is None else _share(row.tokens, tokens),
        )
        for row in groups.rows
    ]
    caption = f"<h4>by {escape(groups.column)}</h4>"
    return caption + table((groups.column, "documents", "share", "tokens", "share of tokens"), rows)


def _bound_cell(achieved: float, bound: float | None) -> str:
    if bound is None:
        return "-"
    verdict = '<span class="pass">pass</span>' if achieved >= bound else '<span class="fail">FAIL</span>'
    return f"&gt;= {bound:.1%} {verdict}"


def _points(difference: float) -> str:
    """A share's difference in percentage points; one that rounds to zero is "+0.0", never "-0.0"."""
    return f"{round(difference * 100, 1) + 0.0:+.1f}"


def _mix_table(figures: RunFigures) -> str:
    rows = [
        (
            share.group,
            f"{share.target:.1%}",
            f"{share.achieved:.1%}",
            _points(share.achieved - share.target),
            f"{share.repeat_factor:.2f}",
            _bound_cell(share.achieved, figures.min_shares.get(share.group)),
        )
        for share in figures.mix
    ]
    header = ("group", "target", "achieved", "difference (points)", "passes over the group", "nightly bound")
    return "<h4>mix: target against achieved share of the shard tokens</h4>" + table(header, rows, raw=frozenset({5}))


def _source_funnels(figures: RunFigures) -> str:
    """What each source of pipeline.sources ran before the one dedup of them all."""
    rows = [
        (name, row.stage, f"{row.docs_in:,}", f"{row.kept:,}", ", ".join(f"{r} {n:,}" for r, n in row.reasons) or "-")
        for name, funnel in figures.source_funnels.items()
        for row in funnel
    ]
    header = ("source", "stage", "docs in", "kept", "drop reasons")
    return "<h4>each source up to dedup</h4>" + table(header, rows)


def _sources(figures: RunFigures) -> str:
    if figures.groups is None:
        return '<p class="not-run">not run: no document stage finished</p>'
    tokens_from = figures.groups[0].tokens_from
    note = f"Documents of the final corpus; tokens of the {tokens_from} (text tokens)." if tokens_from else ""
    parts = [_source_funnels(figures)] if figures.source_funnels else []
    parts.append(f"<p>{escape(note or 'Documents of the final corpus; no shards yet.')}</p>")
    parts += [_group_table(groups) for groups in figures.groups]
    if figures.mix is not None:
        parts.append(_mix_table(figures))
    return "".join(parts)


def _quality(figures: RunFigures) -> str:
    if figures.quality_histograms is None:
        return not_run("quality")
    parts = [
        "<p>Every document the quality stage saw; dashed lines are the keep rules' default bounds, "
        "per-language bounds are listed under each chart.</p>"
    ]
    parts += [figure(plot, plot.notes) for plot in figures.quality_histograms]
    if figures.quality_not_computed:
        parts.append(
            f"<p>Not computed (null for every document): {escape(', '.join(figures.quality_not_computed))}</p>"
        )
    if figures.quality_all_zero:
        parts.append(f"<p>0 for every document (no chart): {escape(', '.join(figures.quality_all_zero))}</p>")
    return "".join(parts)


def _dedup(figures: RunFigures) -> str:
    if figures.clusters is None:
        return not_run("dedup")
    dedup = figures.stages["dedup"].stats
    reasons = ", ".join(f"{reason} {n:,}" for reason, n in sorted(dedup.dropped.items())) or "none"
    if figures.duplicate_rate is None:  # no document reached dedup: a normal outcome, said so
        summary = "<p>No documents reached dedup.</p>"
    else:
        summary = (
            f"<p>Duplicate rate {figures.duplicate_rate:.2%}: {sum(dedup.dropped.values()):,} of "
            f"{dedup.docs_in:,} documents dropped ({escape(reasons)}).</p>"
        )
    return summary + figure(figures.clusters, ["a kept document stands for its cluster; size 1: no duplicate"])


def _pii(figures: RunFigures) -> str:
    if figures.pii is None:
        return not_run("pii")
    matches, documents = figures.pii
    return figure(matches, [f"{matches.total:,.0f} matches in all"]) + figure(documents)


def _decontamination(figures: RunFigures) -> str:
    found = figures.decontamination
    if found is None:
        return not_run("decontaminate")
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
    return table(header, rows) + example_group(examples)


def _token_section(figures: RunFigures) -> str:
    if figures.shards is None:
        return not_run("tokenize")
    return figure(figures.shards) + figure(figures.token_languages) + figure(figures.top_tokens)


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
        "examples": examples_section,
        "gates": gates_section,
        "training": training_section,
        "diversity": diversity_section,
        "drift": drift_section,
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
