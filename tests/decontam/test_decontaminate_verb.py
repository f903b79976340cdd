"""`corpus-pipeline decontaminate` with the local runner on real documents, then what the run
record, the gates and the report make of its output."""

from __future__ import annotations

import pyarrow.parquet as pq
from decontam_fixtures import planted_run
from stage_fixtures import stage_dir

from corpus_pipeline.cli import main
from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.decontam.config import DecontaminationConfig
from corpus_pipeline.decontam.gates import contamination_gates
from corpus_pipeline.engine.store.stage_dir import STATS_FILE
from corpus_pipeline.report.write import write_report
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage


def test_the_verb_drops_planted_items_and_records_each_set(tmp_path, capsys):
    docs, eval_file = planted_run(tmp_path)
    out = stage_dir(tmp_path / "run", "decontaminate")
    arguments = ["decontaminate", "--input", str(stage_dir(tmp_path / "run", "quality")), "--output", str(out)]
    assert main([*arguments, "--eval", "humaneval", str(eval_file), "--runner", "local"]) == 0
    assert "decontaminate" in capsys.readouterr().out
    rejected = pq.read_table(out / "_rejected" / "reason=contaminated").to_pylist()
    assert sorted(row["id"] for row in rejected) == sorted([docs[-1]["id"], docs[15]["id"]])
    details = " ".join(row["reject_detail"] for row in rejected)
    assert "humaneval: 1 item (HumanEval/7)" in details and "zh_quiz: 1 item (zq1)" in details
    kept = pq.read_table(out).to_pylist()
    assert len(kept) == len(docs) - 2 and all(row["decontam_items_matched"] == 0 for row in kept)
    stats = StageStats.read(out / STATS_FILE)
    assert stats.dropped == {"contaminated": 2} and stats.extra["decontam_documents"] == {"humaneval": 1, "zh_quiz": 1}

    config = DecontaminationConfig(max_contamination={"humaneval": 0.0, "zh_quiz": 0.0, "mmlu": 0.1})
    verdicts = {gate.name: (gate.value, gate.passed) for gate in contamination_gates(out, config, Storage())}
    assert verdicts == {
        "contamination:humaneval": (0.0, True),
        "contamination:zh_quiz": (0.0, True),
        "contamination:mmlu": (None, False),  # never checked: not measured, fails
    }
    assert not any(
        gate.passed for gate in contamination_gates(stage_dir(tmp_path / "run", "quality"), config, Storage())
    )

    page = write_report(tmp_path / "run", PipelineConfig()).path.read_text(encoding="utf-8")
    section = page[page.index('<section id="decontamination">') :].split("</section>")[0]
    assert "humaneval" in section and "zh_quiz" in section and "withheld" in section
    assert "HumanEval/7" in section and problem_start(docs) not in section


def problem_start(docs) -> str:
    """More of the planted problem than a reject detail quotes."""
    page = docs[-1]["text"]
    return page[page.index("Here is my homework:") + 22 :][:80]


def test_a_set_kept_in_the_corpus_fails_its_gate(tmp_path):
    _, eval_file = planted_run(tmp_path)
    out = stage_dir(tmp_path / "run", "decontaminate")
    counted = ["--set", "decontamination.eval_sets=[{name: zh_quiz, path: " + str(eval_file) + ", action: keep}]"]
    arguments = ["decontaminate", "--input", str(stage_dir(tmp_path / "run", "quality")), "--output", str(out)]
    assert main([*arguments, *counted, "--runner", "local"]) == 0
    (gate,) = contamination_gates(out, DecontaminationConfig(max_contamination={"zh_quiz": 0.5}), Storage())
    assert (gate.value, gate.passed) == (1.0, False)
    assert pq.read_table(out, columns=["decontam_items_matched"]).column(0).to_pylist().count(1) == 1


def test_repeated_eval_flags_check_every_set(tmp_path):
    """`--eval humaneval --eval FILE` is both sets (argparse's last-one-wins dropped HumanEval)."""
    docs, eval_file = planted_run(tmp_path)
    out = stage_dir(tmp_path / "run", "decontaminate")
    arguments = ["decontaminate", "--input", str(stage_dir(tmp_path / "run", "quality")), "--output", str(out)]
    assert main([*arguments, "--eval", "humaneval", "--eval", str(eval_file), "--runner", "local"]) == 0
    stats = StageStats.read(out / STATS_FILE)
    assert stats.extra["decontam_documents"] == {"humaneval": 1, "zh_quiz": 1}
