"""The report's sections about the final corpus as a whole: document examples per rule, the
gates, topic diversity and drift against the previous snapshot."""

from __future__ import annotations

from html import escape

from corpus_pipeline.report.collect import RunFigures
from corpus_pipeline.report.drift import DriftCheck
from corpus_pipeline.report.examples import ExampleGroup
from corpus_pipeline.report.html_blocks import not_run, table


def example_group(group: ExampleGroup) -> str:
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


def examples_section(figures: RunFigures) -> str:
    if not figures.examples:
        return "<p>No examples (no stage finished, or report.examples_per_rule is 0).</p>"
    note = "<p>Texts and metadata are truncated and PII is replaced by the PII stage's placeholders.</p>"
    return note + "".join(example_group(group) for group in figures.examples)


def gates_section(figures: RunFigures) -> str:
    if figures.gates_error is not None:
        return f'<p class="fail">gates could not be evaluated: {escape(figures.gates_error)}</p>'
    if figures.gates is None:
        return not_run("quality")
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
    parts.append(table(("language", "gate", "value", "bound", "verdict"), rows, raw=frozenset({4})))
    ungated = [lang for lang, figures_ in report.languages.items() if not figures_["gated"]]
    if ungated:
        parts.append(f"<p>Not gated (too few documents): {escape(', '.join(ungated))}</p>")
    return "".join(parts)


def diversity_section(figures: RunFigures) -> str:
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
    parts.append(table(("group", "documents", "sampled", "clusters", "coverage"), rows))
    for group in diversity.groups:
        clusters = sorted(enumerate(group.clusters), key=lambda item: -item[1].share)
        parts.append(f"<h4>{escape(group.group)}: clusters by share</h4>")
        parts.append(table(("#", "share", "most central document"), [
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


def drift_section(figures: RunFigures) -> str:
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
        table(("figure", "change", "bound", "status", "detail"), rows, raw=frozenset({3})),
    ]
    if figures.diversity_skipped:
        parts.append(f"<p>Topic cluster shares: {escape(figures.diversity_skipped)}.</p>")
    for check in figures.drift:
        if check.changes:
            changes = [(c.key, f"{c.previous:.2%}", f"{c.current:.2%}", f"{c.change:+.2%}") for c in check.changes]
            parts.append(f"<h4>{escape(check.name)}: largest changes</h4>")
            parts.append(table(("", "previous", "current", "change"), changes))
    return "".join(parts)
