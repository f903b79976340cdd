"""Histogram axes, cluster-size buckets and the SVG charts, on small made-up numbers."""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from lxml import etree

from corpus_pipeline.report.bars import MAX_BARS, Bars
from corpus_pipeline.report.corpus_figures import cluster_size_bars
from corpus_pipeline.report.histogram import histogram
from corpus_pipeline.report.run_dir import StageRun
from corpus_pipeline.report.svg import bar_chart, histogram_chart
from corpus_pipeline.stats import StageStats

SVG = "{http://www.w3.org/2000/svg}"


def test_a_far_tail_is_folded_into_the_last_bar():
    values = np.concatenate([np.arange(1000, dtype=float), [1e6]])
    plot = histogram("words", {"kept": values}, bins=10)
    assert plot.edges[-1] < 1000 and sum(plot.series["kept"]) == 1001
    assert plot.series["kept"][-1] >= 1 and "the last bar also counts values above" in plot.notes[0]


def test_thresholds_near_the_data_widen_the_axis_far_ones_are_noted():
    values = np.linspace(0.0, 0.05, 50)
    plot = histogram("ratio", {"kept": values}, bins=10, thresholds=[("max", 0.08), ("min", -5.0)])
    assert plot.edges[-1] == 0.08 and plot.thresholds == [("max", 0.08)]
    assert plot.notes == ["min -5 lies off the axis"]


def test_integer_and_constant_signals():
    lines = histogram("lines", {"kept": np.array([0, 0, 1, 3.0])}, bins=30)
    assert lines.edges == [-0.5, 0.5, 1.5, 2.5, 3.5] and lines.series["kept"] == [2, 1, 0, 1]
    constant = histogram("frac", {"kept": np.zeros(5), "rejected": np.zeros(2)}, bins=30, thresholds=[("max", 0.3)])
    assert constant.thresholds == [("max", 0.3)] and constant.total == 7
    assert histogram("none", {"kept": np.array([])}, bins=10) is None


def test_cluster_sizes_in_doubling_buckets(tmp_path):
    sizes = [1, 1, 2, 3, 4, 5, 8, 9, 16, 17, None]
    pq.write_table(pa.table({"dup_cluster_size": pa.array(sizes, pa.int64())}), tmp_path / "part-00000.parquet")
    bars = cluster_size_bars(StageRun("dedup", tmp_path, StageStats("dedup")))
    assert bars.items == [("1", 2.0), ("2", 1.0), ("3-4", 2.0), ("5-8", 2.0), ("9-16", 2.0), ("17-32", 1.0)]


def test_svg_charts_are_xml_with_a_bar_per_item_and_threshold_lines():
    chart = etree.fromstring(bar_chart(Bars("langs", [("en", 3.0), ("zh & ja", 1.0)])))
    assert chart.tag == f"{SVG}svg" and len(chart.findall(f"{SVG}rect")) == 2
    assert "zh & ja" in "".join(chart.itertext())
    many = etree.fromstring(bar_chart(Bars("shards", [(f"s{i}", 1.0) for i in range(MAX_BARS + 5)])))
    assert len(many.findall(f"{SVG}rect")) == MAX_BARS and "5 more not drawn" in "".join(many.itertext())
    empty = etree.fromstring(bar_chart(Bars("none", [])))
    assert float(empty.get("height")) > 0 and "no documents" in "".join(empty.itertext())
    plot = histogram("x", {"kept": np.arange(10.0), "rejected": np.arange(5.0)}, 5, [("max", 8.0)])
    chart = etree.fromstring(histogram_chart(plot))
    dashed = [line for line in chart.findall(f"{SVG}line") if line.get("stroke-dasharray")]
    assert len(dashed) == 1 and "max = 8" in "".join(chart.itertext())


def test_long_bar_labels_wrap_whole_instead_of_being_cut():
    labels = ["quality: fineweb_line_punct_ratio", "quality: gopher_repetition_top_2gram_char_fraction", "en"]
    chart = etree.fromstring(bar_chart(Bars("drop reasons", [(label, 3.0) for label in labels])))
    texts = [text for text in chart.iter(f"{SVG}text") if text.findall(f"{SVG}tspan")]
    shown = ["".join(span.text for span in text.findall(f"{SVG}tspan")).replace(" ", "") for text in texts]
    assert shown == [label.replace(" ", "") for label in labels]  # every character, in order
    assert "\u2026" not in "".join(chart.itertext())
    spans = [text.findall(f"{SVG}tspan") for text in texts]
    assert [len(lines) for lines in spans] == [2, 2, 1]
    assert all(len(span.text) <= 28 for lines in spans for span in lines)
    # Rows do not overlap: each label's first line sits below the previous label's last line.
    tops = [(float(lines[0].get("y")), float(lines[-1].get("y"))) for lines in spans]
    assert all(later[0] > earlier[1] for earlier, later in itertools.pairwise(tops))
    assert len(chart.findall(f"{SVG}rect")) == 3


def test_the_last_axis_label_ends_inside_the_image():
    """A heavy-tailed signal's last tick ("1.59e+06") ran past the right edge when centred on it."""
    plot = histogram("words", {"kept": np.linspace(0, 1.59e6, 50)}, bins=10)
    chart = etree.fromstring(histogram_chart(plot))
    ticks = [text for text in chart.iter(f"{SVG}text") if text.text and text.text.endswith("e+06")]
    last = max(ticks, key=lambda text: float(text.get("x")))
    width = len(last.text) * 11 * 0.6  # 11 px sans-serif: about 0.6 em a character
    right = {"start": width, "middle": width / 2, "end": 0.0}[last.get("text-anchor")] + float(last.get("x"))
    assert last.text == "1.59e+06" and right <= float(chart.get("width"))
