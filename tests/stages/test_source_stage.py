"""A source stage is its config and what its registry entry hands it: the base class builds nothing
(no domain rules, no Storage of its own), so a source stage that labels no domains and reads local
files needs neither section, and the ones that do are given theirs (extract, ingest)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from corpus_pipeline.config import DomainRule, DomainsConfig
from corpus_pipeline.document import DOCUMENT_SCHEMA, empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.lifecycle import run_chain
from corpus_pipeline.extract.stage import ExtractStage
from corpus_pipeline.ingest.stage import IngestStage
from corpus_pipeline.stages.base import Drop, SourceStage
from corpus_pipeline.storage import Storage


class LinesStage(SourceStage):
    """One document per non-empty line of a local text file; no domains, no storage section."""

    name = "lines"

    def __init__(self, min_chars: int):
        self.config = {"min_chars": min_chars}

    def input_files(self, arguments: list[str]) -> list[str]:
        return sorted(arguments)

    def read(self, path, stats, span=None):
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines()):
            stats.count_in(len(line.encode("utf-8")))
            row = empty_document(id=f"{Path(path).name}:{number}", text=line, source="lines", domain="lines")
            short = len(line) < self.config["min_chars"]
            yield row, Drop("too_short", str(len(line))) if short else None

    def output_schema(self):
        return DOCUMENT_SCHEMA


def test_a_source_stage_of_its_config_alone_runs_and_is_fingerprinted_by_it(tmp_path):
    lines = tmp_path / "lines.txt"
    lines.write_text("a first line\nab\na third line\n", encoding="utf-8")
    stage = LinesStage(min_chars=5)
    assert stage.config_fingerprint() == repr({"min_chars": 5})

    files = stage.input_files([str(lines)])
    result = run_chain([stage], files, [tmp_path / "out"], LocalExecutor(), storage=Storage())[0]
    assert (result.stats.docs_in, result.stats.kept, dict(result.stats.dropped)) == (3, 2, {"too_short": 1})
    kept = pq.read_table(result.output, columns=["text"]).column("text").to_pylist()
    assert sorted(kept) == ["a first line", "a third line"]


def test_the_source_stages_that_label_domains_are_fingerprinted_by_their_domains_too():
    rules = DomainsConfig(rules=[DomainRule(host="*.example.org", domain="news")])
    for stage_class in (ExtractStage, IngestStage):
        plain, labelled = stage_class(), stage_class(domains=rules)
        assert labelled.rules.domain_of("https://www.example.org/a", "web") == "news"
        assert plain.rules.domain_of("https://www.example.org/a", "web") == "web"
        # A change of rules relabels documents: the stage's output is not reused.
        assert plain.config_fingerprint() != labelled.config_fingerprint()
        assert labelled.config_fingerprint() == repr((labelled.config, rules))
