"""The report page's training-health section (training_figures.py): per model, a line of figures,
its curves and a table of every health event, with what each one did."""

from __future__ import annotations

from html import escape

from corpus_pipeline.report.html_blocks import figure, table


def _value(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def training_section(figures) -> str:
    if not figures.training:
        return "<p>No model was trained in this run directory (no folder of it holds a metrics.jsonl).</p>"
    parts = []
    for run in figures.training:
        errors = sum(event["severity"] == "error" for event in run.events)
        parts.append(
            f"<h3>{escape(run.name)}</h3><p>Step {run.last_step:,}; train loss {_value(run.last_loss)}, "
            f"validation loss {_value(run.val_loss)}; {len(run.events):,} health event(s), {errors:,} acted on.</p>"
        )
        parts += [figure(run.loss), figure(run.grad_norm)]
        if run.events:
            rows = [
                (f"{e['step']:,}", str(e["severity"]), str(e["kind"]), str(e["action"] or "-"), str(e["message"]))
                for e in run.events
            ]
            parts.append(table(("step", "severity", "kind", "action", "what was seen"), rows))
        else:
            parts.append("<p>No health event: no spike, no non-finite value, no stall.</p>")
    return "".join(parts)
