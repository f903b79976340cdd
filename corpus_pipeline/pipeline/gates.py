"""The gates moved to corpus_pipeline/gates.py, below every stage that declares gates. These names
stay importable from here only for quality/gates.py and quality/cli.py, whose import lines another
branch owns: once they import corpus_pipeline.gates, delete this module."""

from corpus_pipeline.gates import Gate, GateFindings, GateInputs, GateReport, evaluate_gates, final_corpus

__all__ = ["Gate", "GateFindings", "GateInputs", "GateReport", "evaluate_gates", "final_corpus"]
