"""The dataset card (`README.md`) of an export: the Hub's YAML header naming the data files, then
counts (documents, text bytes, shards), languages, sources, domains, licences where the records
name one (a `license`/`licence` field in their metadata), and how it was made: the stage, its
figures and the funnel of the stages beside it, and the config the export was given."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

import orjson
import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.repeated_ids import IdCounter

_LICENCE_KEYS = ("license", "licence", "licenses", "licences")
_SHOWN = 20


def _count(counter: Counter, column: pa.ChunkedArray) -> None:
    for entry in pc.value_counts(column).to_pylist():
        counter[entry["values"] if entry["values"] is not None else "(none)"] += entry["counts"]


def _licences(metadata: str) -> list[str]:
    value = orjson.loads(metadata)
    found = []
    for scope in (value, value.get("metadata") if isinstance(value.get("metadata"), dict) else {}):
        for key in _LICENCE_KEYS:
            named = scope.get(key)
            if isinstance(named, str):
                found.append(named)
            elif isinstance(named, list):
                found.extend(str(n) for n in named)
    return found


@dataclass
class CardFigures:
    documents: int = 0
    text_bytes: int = 0
    languages: Counter = field(default_factory=Counter)
    sources: Counter = field(default_factory=Counter)
    domains: Counter = field(default_factory=Counter)
    licences: dict[str, Counter] = field(default_factory=dict)  # source -> licence -> documents
    ids: IdCounter = field(default_factory=IdCounter)

    def add(self, table: pa.Table) -> None:
        self.documents += table.num_rows
        if "id" in table.column_names:
            self.ids.add(table.column("id"))
        self.text_bytes += pc.sum(pc.binary_length(table.column("text"))).as_py() or 0
        for name, counter in (("language", self.languages), ("source", self.sources), ("domain", self.domains)):
            if name in table.column_names:
                _count(counter, table.column(name))
        if "metadata" not in table.column_names:
            return
        metadata = table.column("metadata")
        named = pc.fill_null(pc.match_substring(metadata, "licen"), False)
        if not pc.any(named).as_py():
            return
        rows = table.filter(named)
        sources = rows.column("source").to_pylist() if "source" in rows.column_names else [None] * rows.num_rows
        for source, value in zip(sources, rows.column("metadata").to_pylist(), strict=True):
            for licence in _licences(value):
                self.licences.setdefault(source or "(none)", Counter())[licence] += 1


def _table(title: str, counter: Counter, total: int) -> list[str]:
    lines = [f"| {title} | documents | share |", "|---|---:|---:|"]
    for key, count in counter.most_common(_SHOWN):
        lines.append(f"| {key} | {count:,} | {count / total:.1%} |" if total else f"| {key} | {count:,} | |")
    if len(counter) > _SHOWN:
        rest = sum(count for _, count in counter.most_common()[_SHOWN:])
        lines.append(f"| {len(counter) - _SHOWN} more | {rest:,} | |")
    return lines


def render(figures: CardFigures, files: list[str], fmt: str, made: dict) -> str:
    """The card's Markdown; `made`: stage, input, stats (the stage's _stats.json), funnel (stage ->
    its stats, the stages beside it) and config (the config given, non-default values)."""
    loader = "parquet" if fmt == "parquet" else "json"
    lines = [
        "---",
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: train",
        f"    path: data/train-*{'.parquet' if fmt == 'parquet' else '.jsonl.zst'}",
        "---",
        "",
        f"# {made['stage']} documents",
        "",
        f"Exported by corpus_pipeline from the `{made['stage']}` stage at `{made['input']}`: "
        f"{figures.documents:,} documents, {figures.text_bytes:,} bytes of text, in {len(files)} "
        f"{'shard' if len(files) == 1 else 'shards'} ({fmt}).",
        "",
        "```python",
        "import datasets",
        f'ds = datasets.load_dataset("{loader}", data_files="data/train-*", split="train")',
        "```",
        "",
        "Columns: `id`, `text` and the provenance and labels of corpus_pipeline's document record "
        "(`url`, `date`, `dump`, `source`, `domain`, `language`...); `metadata` holds each record's "
        "other fields of the dataset it came from, as a JSON object in a string.",
        "",
        "## Languages",
        "",
        *_table("language", figures.languages, figures.documents),
        "",
        "## Sources",
        "",
        *_table("source", figures.sources, figures.documents),
        "",
        "## Domains",
        "",
        *_table("domain", figures.domains, figures.documents),
        "",
        "## Licences",
        "",
    ]
    if figures.licences:
        lines += ["| source | licence | documents |", "|---|---|---:|"]
        for source, counter in sorted(figures.licences.items()):
            lines += [f"| {source} | {licence} | {count:,} |" for licence, count in counter.most_common(_SHOWN)]
    else:
        lines.append("No record names a licence (no `license` field in the metadata): see each source's own terms.")
    lines += ["", "## How it was made", ""]
    funnel = made.get("funnel") or {}
    if funnel:
        lines += ["| stage | in | kept | dropped (top reasons) |", "|---|---:|---:|---|"]
        for stage, stats in funnel.items():
            top = Counter(stats.get("dropped", {})).most_common(3)
            reasons = ", ".join(f"{reason} {count:,}" for reason, count in top)
            lines.append(f"| {stage} | {stats.get('docs_in', 0):,} | {stats.get('kept', 0):,} | {reasons} |")
        lines.append("")
    lines += ["Config given to the export (values that differ from the defaults):", "", "```json"]
    lines += [json.dumps(made.get("config", {}), indent=2, ensure_ascii=False, sort_keys=True), "```", ""]
    lines += ["Files:", "", *[f"- `{name}`" for name in files], ""]
    return "\n".join(lines)
