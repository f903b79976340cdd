"""Evaluation sets: every format, the built-in HumanEval, and a clear error for each bad input."""

from __future__ import annotations

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from corpus_pipeline.decontam.config import EvalSetConfig
from corpus_pipeline.decontam.eval_sets import EvalSetError, load_eval_set


def _load(path, **settings):
    return load_eval_set(EvalSetConfig(name="mine", path=str(path), **settings))


def test_builtin_humaneval_is_read_from_the_installed_package():
    humaneval = load_eval_set(EvalSetConfig(name="humaneval", builtin="humaneval"))
    assert len(humaneval.items) == 164 and humaneval.source.endswith("HumanEval.jsonl.gz")
    first = humaneval.items[0]
    assert first.id == "HumanEval/0" and "def has_close_elements" in first.text and "HumanEval/0" not in first.text


def test_jsonl_matches_every_string_field_but_the_id_unless_fields_are_chosen(tmp_path):
    path = tmp_path / "qa.jsonl.gz"
    rows = [{"id": "q1", "question": "Who wrote it?", "answer": "Ada", "choices": ["Ada", "Bob"], "level": 3}]
    with gzip.open(path, "wt", encoding="utf-8") as stream:
        stream.write("\n" + json.dumps(rows[0]) + "\n")
    (item,) = _load(path).items
    assert (item.id, item.text, item.where) == ("q1", "Who wrote it?\nAda\nAda\nBob", f"{path}:2")
    (chosen,) = _load(path, fields=["answer", "question"]).items
    assert chosen.text == "Ada\nWho wrote it?"


def test_parquet_rows_and_plain_text_lines_and_blocks(tmp_path):
    table = pa.table({"task": ["t1", "t2"], "prompt": ["first prompt", "second prompt"]})
    pq.write_table(table, tmp_path / "s.parquet")
    items = _load(tmp_path / "s.parquet", id_field="task").items
    assert [(i.id, i.text) for i in items] == [("t1", "first prompt"), ("t2", "second prompt")]
    (tmp_path / "s.txt").write_text("one item\n\nsecond item\nits second line\n", encoding="utf-8")
    assert [(i.id, i.text) for i in _load(tmp_path / "s.txt").items] == [
        ("1", "one item"),
        ("3", "second item"),
        ("4", "its second line"),
    ]
    blocks = _load(tmp_path / "s.txt", format="blocks").items
    assert [(i.id, i.text) for i in blocks] == [("1", "one item"), ("3", "second item\nits second line")]


@pytest.mark.parametrize(
    ("content", "settings", "message"),
    [
        ('{"id": 1, "q": "fine"}\n{"id": 2, "q": \n', {}, r"qa\.jsonl:2: not JSON"),
        ('{"id": 1, "q": "fine"}\n["a list"]\n', {}, r"qa\.jsonl:2: not a JSON object"),
        ('{"id": 1, "q": "fine"}\n{"id": 2, "a": "x"}\n', {"fields": ["q"]}, r"qa\.jsonl:2: no field 'q'"),
        ('{"id": 1, "q": 42}\n', {"fields": ["q"]}, r"qa\.jsonl:1: field 'q' is int, not text"),
        ('{"id": 1, "q": "  "}\n', {}, r"qa\.jsonl:1: no text in any string field"),
        ("\n\n", {}, r"eval set 'mine': .*qa\.jsonl holds no items"),
    ],
)
def test_bad_input_names_the_file_and_the_line(tmp_path, content, settings, message):
    path = tmp_path / "qa.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(EvalSetError, match=message):
        _load(path, **settings)


def test_missing_file_missing_column_undecodable_text_and_unknown_format(tmp_path):
    with pytest.raises(EvalSetError, match=r"nope\.jsonl does not exist"):
        _load(tmp_path / "nope.jsonl")
    pq.write_table(pa.table({"prompt": ["p"]}), tmp_path / "s.parquet")
    with pytest.raises(EvalSetError, match=r"s\.parquet: no column 'answer' \(columns: prompt\)"):
        _load(tmp_path / "s.parquet", fields=["answer"])
    (tmp_path / "bad.txt").write_bytes(b"fine\n\xff\xfe broken\n")
    with pytest.raises(EvalSetError, match=r"bad\.txt:2: not UTF-8"):
        _load(tmp_path / "bad.txt")
    (tmp_path / "set.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(EvalSetError, match=r"set\.csv: cannot tell the format"):
        _load(tmp_path / "set.csv")
    with pytest.raises(ValueError, match="exactly one of builtin"):
        EvalSetConfig(name="both", builtin="humaneval", path="x.jsonl")
