"""A finished quality directory of real documents, two of them holding eval items: a HumanEval
problem pasted into a web page, and a People's Daily line that a Chinese eval file holds."""

from __future__ import annotations

import json

from stage_fixtures import real_documents, stage_dir, write_stage

from corpus_pipeline.decontam.config import EvalSetConfig
from corpus_pipeline.decontam.eval_sets import load_eval_set
from corpus_pipeline.document import document_id, empty_document


def planted_run(tmp_path):
    docs = real_documents(english=12, chinese=12)
    problem = load_eval_set(EvalSetConfig(name="humaneval", builtin="humaneval")).items[7].text
    page = f"{docs[0]['text']}\n\nHere is my homework:\n\n{problem}\n\n{docs[1]['text']}"
    docs.append(empty_document(id=document_id("https://x.example/hw", page), text=page, url="https://x.example/hw"))
    question = docs[15]["text"].splitlines()[0]  # a People's Daily line as a Chinese eval item
    eval_file = tmp_path / "zh_quiz.jsonl"
    eval_file.write_text(json.dumps({"id": "zq1", "question": question}, ensure_ascii=False) + "\n", "utf-8")
    write_stage(stage_dir(tmp_path / "run", "quality"), docs, parts=2)
    return docs, eval_file
