"""The README is tested: every command line of its bash blocks and every `make help` target is run
by a test or listed as not runnable here, with why (readme_commands.py, the one place); the cheap
ones run here as written; docker/crontab says what the README and `nightly --help` say."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_DATA, shared_data
from readme_commands import README_TEST, RUN_BY, RUN_HERE, SUBSTITUTE, not_here
from readme_lines import ROOT, make_targets, readme_commands

from corpus_pipeline import exit_codes


def _shown() -> list[str]:
    return readme_commands() + make_targets()


def test_every_readme_command_and_make_target_is_run_by_a_test_or_says_why_not():
    missing = [c for c in _shown() if c not in RUN_HERE and c not in RUN_BY and not_here(c) is None]
    assert missing == [], "add each to tests/readme/readme_commands.py: RUN_HERE, RUN_BY or NOT_HERE"


def test_no_entry_names_a_command_the_readme_no_longer_shows():
    from readme_commands import NOT_HERE

    shown = set(_shown())
    assert [c for c in (*RUN_HERE, *RUN_BY, *NOT_HERE) if c not in shown] == []


def test_each_test_named_exists():
    for test_id in {*RUN_BY.values(), README_TEST}:
        path, name = test_id.split("::")
        assert re.search(rf"^def {name}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), test_id


def test_the_crontab_is_the_readme_s_and_its_exit_codes_are_nightly_s():
    crontab = (ROOT / "docker" / "crontab").read_text(encoding="utf-8")
    (line,) = [row for row in crontab.splitlines() if row.startswith("30 2 * * * ")]
    assert f"```\n{line}\n```" in (ROOT / "README.md").read_text(encoding="utf-8")
    comment = " ".join(row.removeprefix("#").strip() for row in crontab.splitlines() if row.startswith("#"))
    said = re.search(r"Exit codes \(README, `corpus-pipeline nightly --help`\): (.*?)\. Alert", comment).group(1)
    assert sorted(int(code) for code in re.findall(r"(?:^|, )(\d+) ", said)) == sorted(exit_codes.EXPLAINED)
    assert "1 a stage or a gate failed" in said  # a failed gate is 1 (it said 4)


def _sandbox(tmp_path: Path) -> Path:
    """The project's layout with a data/ of its own: code, configs and Makefile linked, the running
    venv as .venv, ../shared/data the real data. pyproject.toml is a copy dated 1970, so make never
    sees the venv as older than it and never installs into the running venv."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("Makefile", "configs", "corpus_pipeline", "jobs", "schemas", "benchmarks"):
        (project / name).symlink_to(ROOT / name)
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    os.utime(project / "pyproject.toml", (0, 0))
    (project / ".venv").symlink_to(sys.prefix)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(SHARED_DATA.resolve())
    return project


@pytest.mark.slow
@pytest.mark.spark  # make pipeline runs as written: on Spark local[*]
def test_the_readme_commands_run_as_written(tmp_path):
    """The first hour on the user's own data: each RUN_HERE line, in order, exits 0 with no traceback."""
    shared_data("warc/cc-main-2024-22-one-page.warc.gz")
    if not (Path(sys.prefix) / ".installed").is_file():
        pytest.skip(f"{sys.prefix} was not made by `make setup` (no .installed): make would install into it")
    project = _sandbox(tmp_path)
    venv_bin = str(Path(sys.prefix) / "bin")
    env = {**os.environ, "PATH": f"{venv_bin}:{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    env.pop("MAKEFLAGS", None)
    for command in RUN_HERE:
        for placeholder, value in SUBSTITUTE.items():
            command = command.replace(placeholder, value)
        done = subprocess.run(
            ["bash", "-c", command], cwd=project, env=env, capture_output=True, text=True, timeout=300
        )
        said = done.stdout + done.stderr
        assert done.returncode == 0 and "Traceback" not in said, f"{command}\n{said[-4000:]}"
    assert not (project / "data").exists()  # make clean, last
