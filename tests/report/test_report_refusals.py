"""The report writes through the store's guard: it replaces only a page it wrote, never a user's
file, folder, FIFO or device, and refuses a folder that is not a run (exit 2, all left as it was)."""

from __future__ import annotations

import os
import shutil
import stat

from report_run_fixture import config, report_run  # noqa: F401 (a fixture)

from corpus_pipeline.cli import main
from corpus_pipeline.report.write import write_report


def _tree(root):
    return {
        p.relative_to(root).as_posix(): (
            p.read_bytes() if p.is_file() and not p.is_symlink() else stat.S_IFMT(os.lstat(p).st_mode)
        )
        for p in sorted(root.rglob("*"))
    }


def test_a_users_file_fifo_or_folder_at_the_output_is_refused_untouched(report_run, tmp_path, capsys):  # noqa: F811
    (tmp_path / "userreport.html").write_text("<p>my own page</p>")
    os.mkfifo(tmp_path / "pipe.html")
    (tmp_path / "folder.html").mkdir()
    before = _tree(tmp_path)
    for name in ("userreport.html", "pipe.html", "folder.html"):
        assert main(["report", str(report_run), "--output", str(tmp_path / name)]) == 2, name
        assert "not" in capsys.readouterr().err
    assert _tree(tmp_path) == before


def test_a_folder_that_is_not_a_run_is_refused_and_a_users_page_in_a_run_is_kept(report_run, tmp_path, capsys):  # noqa: F811
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "a.jsonl").write_text('{"text": "x"}\n')
    assert main(["report", str(inputs)]) == 2
    assert "not a run directory" in capsys.readouterr().err
    assert [p.name for p in inputs.iterdir()] == ["a.jsonl"]
    run = tmp_path / "run"
    shutil.copytree(report_run, run)
    shutil.rmtree(run / "report", ignore_errors=True)
    (run / "report").mkdir()
    (run / "report" / "index.html").write_text("<p>the user's own notes</p>")
    assert main(["report", str(run)]) == 2
    assert (run / "report" / "index.html").read_text() == "<p>the user's own notes</p>"


def test_our_page_is_replaced_but_not_once_a_user_edited_it(report_run, tmp_path):  # noqa: F811
    output = tmp_path / "page.html"
    first = write_report(report_run, config(), output=output).path.read_bytes()
    assert write_report(report_run, config(), output=output).path.read_bytes() == first  # ours: rewritten
    output.write_text(first.decode() + "<!-- my edit -->")
    assert main(["report", str(report_run), "--output", str(output)]) == 2
    assert output.read_text().endswith("<!-- my edit -->")
