"""Config of the decontaminate stage: which evaluation sets to look for, how to match, what to do."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from corpus_pipeline.config_base import Strict

BUILTIN_SETS = ("humaneval",)


class EvalSetConfig(Strict):
    """One evaluation set: a file (`path`) or a set that ships with a package (`builtin`)."""

    # Names the set in reject details, stats, the report and the gates.
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    builtin: Literal["humaneval"] | None = None
    path: str | None = None
    # auto: from the file name (.jsonl/.json/.jsonl.gz -> jsonl, .parquet, .txt -> lines);
    # blocks: plain text, one item per blank-line-separated block.
    format: Literal["auto", "jsonl", "parquet", "lines", "blocks"] = "auto"
    # The fields matched (question, answer, choices...); None: every string field but the id.
    fields: list[str] | None = None
    # The field that names an item (absent: the item's line or row number).
    id_field: str = "id"
    # drop: the document goes to _rejected/reason=contaminated/. remove: each match is cut out with
    # `margin_chars` on both sides, and a document cut into more than `max_pieces` pieces is dropped
    # (GPT-3: 200 characters, 10 pieces; Brown et al. 2020, appendix C). keep: counted and
    # reported only, the document unchanged (to measure a set before deciding; the gates see it).
    action: Literal["drop", "remove", "keep"] = "drop"
    margin_chars: int = Field(200, ge=0)
    max_pieces: int = Field(10, ge=1)

    @model_validator(mode="after")
    def _one_source(self) -> EvalSetConfig:
        if (self.builtin is None) == (self.path is None):
            raise ValueError(f"eval set {self.name!r}: give exactly one of builtin ({', '.join(BUILTIN_SETS)}) or path")
        return self


def _default_sets() -> list[EvalSetConfig]:
    # HumanEval ships in a dependency and its 164 items index in ~0.1 s: checking it costs every run
    # almost nothing, and a code corpus that holds it would make every HumanEval score meaningless.
    return [EvalSetConfig(name="humaneval", builtin="humaneval")]


class DecontaminationConfig(Strict):
    eval_sets: list[EvalSetConfig] = Field(default_factory=_default_sets)
    # 13 words, as GPT-3's decontamination (Brown et al. 2020, appendix C) and most corpus reports
    # since; on the planted HumanEval items of `eval decontamination` every edit kind keeps at
    # least one 13-gram intact.
    word_ngram: int = Field(13, ge=1)
    # Chinese, Japanese, Thai...: characters per n-gram (~12 words). On `eval decontamination`
    # (200 People's Daily items, 1,949 clean articles of the same month) 20 and 25 both find every
    # planted item, edits included, but 20 touches 13 clean articles (0.67%), 25 five (0.26%, each
    # a real sentence of 25+ characters that two articles share, such as a slogan).
    char_ngram: int = Field(25, ge=1)
    # An item shorter than one n-gram is matched whole, but not below these: a 2-word answer ("New
    # York") is in millions of clean pages. Shorter items are skipped and counted per set.
    min_item_words: int = Field(8, ge=1)
    min_item_chars: int = Field(12, ge=1)
    # An n-gram shared by more items is template text, left out of the index: HumanEval's test
    # header "METADATA = {'author': 'jt', 'dataset': 'test'} def check(candidate): assert
    # candidate" is in 86 of its 164 items, and a page quoting it holds none of them.
    max_items_per_ngram: int = Field(10, ge=1)
    # Characters of matched text quoted in reject_detail and the report, the rest masked: a report
    # that quotes whole items would put the benchmark back on the web.
    example_chars: int = Field(40, ge=0)
    # Where the index is saved for the executors of a run to load (named by what decides it; None:
    # the system's temporary folder). A cluster's executors that cannot see the driver's copy
    # build their own there once per machine.
    index_cache: str | None = None
    # Gates: the highest share of a set's items that may still be found in the published corpus
    # after the stage acted (0.0: none). A set named here that the stage did not check fails.
    max_contamination: dict[str, float] = Field(default_factory=lambda: {"humaneval": 0.0})
