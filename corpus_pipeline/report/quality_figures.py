"""One histogram per quality signal over every document the quality stage saw (kept and rejected
counted apart), with the keep rule's bounds as lines and its per-language overrides as notes."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.quality.config import QualityConfig
from corpus_pipeline.quality.stage import SIGNAL_FIELDS
from corpus_pipeline.report.histogram import Histogram, histogram
from corpus_pipeline.report.run_dir import StageRun, kept_parts, parquet_file, read_columns, rejected_parts

# dup_content_hash is an identity (a hash), not a measure: nothing to plot.
SIGNALS = tuple(f.name for f in SIGNAL_FIELDS if f.name != "dup_content_hash")
BLOCKLIST_PREFIX = "blocklist_"


def _values(table: pa.Table, column: str) -> np.ndarray:
    if column not in table.column_names:
        return np.array([], dtype=np.float64)
    return pc.drop_null(table.column(column)).to_numpy(zero_copy_only=False).astype(np.float64)


def signal_bounds(config: QualityConfig, signal: str) -> tuple[list[tuple[str, float]], list[str]]:
    """The default bounds of the enabled rules on `signal` (drawn) and their per-language overrides (told)."""
    lines: list[tuple[str, float]] = []
    notes: list[str] = []
    for name, rule in config.rules.items():
        if rule.signal != signal:
            continue
        if rule.enabled:
            lines += [
                (f"{bound} ({name})", value)
                for bound, value in (("min", rule.min), ("max", rule.max))
                if value is not None
            ]
        for language, override in sorted(rule.by_language.items()):
            given = override.model_fields_set
            parts = [
                f"{key} {getattr(override, key):g}"
                for key in ("min", "max")
                if key in given and getattr(override, key) is not None
            ]
            if "enabled" in given and not override.enabled:
                parts = ["rule off"]
            if parts:
                notes.append(f"{language}: {', '.join(parts)}")
        if not rule.enabled:
            notes.append(f"rule {name} is disabled")
    return lines, notes


def quality_histograms(
    quality: StageRun, config: QualityConfig, bins: int
) -> tuple[list[Histogram], list[str], list[str]]:
    """The histograms, the signals that were null for every document (not computed) and those that
    were 0 for every document (a bar at 0 says nothing a line of text does not)."""
    kept_files = kept_parts(quality)
    rejected_files = [path for paths in rejected_parts(quality).values() for path in paths]
    names = set()
    for path in kept_files[:1] + rejected_files[:1]:
        names |= set(parquet_file(path).schema_arrow.names)
    signals = [s for s in SIGNALS if s in names] + sorted(n for n in names if n.startswith(BLOCKLIST_PREFIX))
    kept = read_columns(kept_files, signals)
    rejected = read_columns(rejected_files, signals)
    plots, empty, zero = [], [], []
    for signal in signals:
        lines, notes = signal_bounds(config, signal)
        values = {"kept": _values(kept, signal), "rejected": _values(rejected, signal)}
        plot = histogram(signal, values, bins, lines)
        if plot is None:
            empty.append(signal)
            continue
        if not any(np.any(series) for series in values.values()):
            zero.append(signal)
            continue
        plot.notes = notes + plot.notes
        plots.append(plot)
    return plots, empty, zero


def quality_section(figures, quality: StageRun, config) -> None:
    """The report's quality section (registry `report`): a histogram per signal, the signals no
    document has, and those that are 0 for every document (named, not drawn)."""
    figures.quality_histograms, figures.quality_not_computed, figures.quality_all_zero = quality_histograms(
        quality, config.quality, config.report.histogram_bins
    )
