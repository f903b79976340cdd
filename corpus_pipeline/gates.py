"""The gates before publishing: the last word on a run's final corpus.

Each registry entry names its gates (`StageSpec.gates`, "module:function"), so the stage that
computes a signal also owns the bound on it: quality's per-language gates (quality/gates.py),
decontaminate's contamination gates (decontam/gates.py). A gate function takes `GateInputs` and
returns `GateFindings`; this module finds the final corpus, calls every stage's gates in registry
order and gathers the report. It imports no gate module by name, so the gates import the types
from here without a cycle; and it stands below every stage that declares gates (it reads the
registry and the stage directories, never a stage), so they import it downward.

The final corpus of a run directory is the last stage in the registry that writes documents and
finished there (its `_SUCCESS`); a stage that ran fused with the stages after it names where its
documents went (`kept`). A document stage appended to the registry after decontaminate becomes
the final corpus with no change here, and decontaminate's gates still read decontaminate's own
directory, found by its name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine import registry
from corpus_pipeline.engine.registry import StageSpec
from corpus_pipeline.engine.store.layout import KEPT_HERE, SUCCESS
from corpus_pipeline.engine.store.stage_dir import (
    Location,
    MissingInputError,
    child,
    input_parts,
    location,
    read_success,
)
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import parquet_metadata


@dataclass
class Gate:
    language: str  # a language, or "all" for a gate over the whole corpus
    name: str  # vocab_coverage, duplicate_ratio, char_entropy, contamination:<set>...
    value: float | None  # None: not measured
    bound: str  # ">= 0.98", "< 0.005", "in [3.5, 5.5]"
    passed: bool

    @property
    def verdict(self) -> str:
        """pass, FAIL, or "not measured": a gate with no value (no vocabulary for ja or vi) does not
        block, and is not shown as passed either."""
        if self.value is None and self.passed:
            return "not measured"
        return "pass" if self.passed else "FAIL"


@dataclass(frozen=True)
class GateInputs:
    corpus: Location  # the final corpus: its `part-*.parquet` are the documents to publish
    stage_dir: Location  # the directory of the stage whose gates these are, in the same run
    config: PipelineConfig
    storage: Storage


@dataclass
class GateFindings:
    gates: list[Gate] = field(default_factory=list)
    languages: dict[str, dict] = field(default_factory=dict)  # figures per language, for the report


GateFunction = Callable[[GateInputs], GateFindings]


@dataclass
class GateReport:
    corpus: Location
    documents: int
    languages: dict[str, dict] = field(default_factory=dict)  # figures per language
    gates: list[Gate] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.documents > 0 and all(gate.passed for gate in self.gates)

    def to_dict(self) -> dict:
        return {
            "corpus": str(self.corpus),
            "documents": self.documents,
            "passed": self.passed,
            "languages": self.languages,
            "gates": [{**gate.__dict__, "verdict": gate.verdict} for gate in self.gates],
        }

    def format_table(self) -> str:
        lines = [f"gates over {self.corpus} ({self.documents:,} documents)"]
        if not self.documents:
            lines.append("  FAIL: the corpus has no documents")
        for gate in self.gates:
            value = "not measured" if gate.value is None else f"{gate.value:.4f}"
            lines.append(f"  {gate.verdict:<4} {gate.language:<8} {gate.name:<16} {value:>12}  (bound {gate.bound})")
        ungated = [lang for lang, figures in self.languages.items() if not figures["gated"]]
        if ungated:
            lines.append(f"  not gated (too few documents): {', '.join(ungated)}")
        lines.append("PASSED" if self.passed else "FAILED")
        return "\n".join(lines)


def _finished(stage_dir: Location, storage: Storage) -> dict | None:
    try:
        return read_success(stage_dir, storage)
    except MissingInputError:
        return None


def _parent(stage_dir: Location) -> Location:
    return location(str(stage_dir).rstrip("/").rpartition("/")[0] or ".")


def _kept_documents(stage_dir: Location, marker: dict) -> Location:
    """Where a finished stage's documents are: its own directory, or the sibling its fused run
    wrote them to."""
    kept = marker.get("kept", KEPT_HERE)
    return stage_dir if kept == KEPT_HERE else child(_parent(stage_dir), kept)


def document_stages() -> list[StageSpec]:
    """The registry's stages that write documents into a run directory, in order."""
    return [spec for spec in registry.STAGES if spec.output == "documents"]


def final_corpus(run_dir: Location, storage: Storage) -> tuple[Location, Location]:
    """(the final corpus, the run directory it belongs to). `run_dir` may also be a finished stage
    directory itself: that stage's documents, in the run directory holding it."""
    marker = _finished(run_dir, storage)
    if marker is not None:
        return _kept_documents(run_dir, marker), _parent(run_dir)
    for spec in reversed(document_stages()):
        stage_dir = child(run_dir, spec.directory)
        marker = _finished(stage_dir, storage)
        if marker is not None:
            return _kept_documents(stage_dir, marker), run_dir
    names = ", ".join(spec.directory for spec in document_stages())
    raise FileNotFoundError(f"{run_dir} has no finished stage of documents (one of {names} with {SUCCESS})")


def corpus_documents(corpus: Location, storage: Storage) -> int:
    """The documents of a finished stage, from its parts' footers (no rows read)."""
    return sum(parquet_metadata(storage, str(part)).num_rows for part in input_parts(corpus, storage))


def evaluate_gates(
    run_dir: Location, config: PipelineConfig, storage: Storage, corpus: Location | None = None
) -> GateReport:
    """Every registry stage's gates over the final corpus of `run_dir` (or over `corpus`, a stage
    directory of that run: what the pipeline's gates step passes)."""
    if corpus is None:
        corpus, run_dir = final_corpus(run_dir, storage)
    report = GateReport(corpus=corpus, documents=corpus_documents(corpus, storage))
    for spec in registry.STAGES:
        for reference in spec.gates:
            inputs = GateInputs(corpus, child(run_dir, spec.directory), config, storage)
            findings = registry.resolve(reference)(inputs)
            report.gates += findings.gates
            report.languages.update(findings.languages)
    return report
