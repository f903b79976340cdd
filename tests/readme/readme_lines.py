"""The commands the README shows and the targets `make help` lists, as the README test reads them:
every line of a ```bash block (a line continued with `\\` joined to the next, comments and blank
lines left out, spaces collapsed), and `make <target>` for each target of `make help`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```bash\n(.*?)^```", re.S | re.M)
_COMMENT = re.compile(r"\s+#.*$|^#.*$")


def readme_commands(readme: Path = ROOT / "README.md") -> list[str]:
    """Every command line of the README's bash blocks, in order (a repeated line once)."""
    lines: list[str] = []
    for block in _BLOCK.findall(readme.read_text(encoding="utf-8")):
        for line in block.replace("\\\n", " ").splitlines():
            command = " ".join(_COMMENT.sub("", line).split())
            if command and command not in lines:
                lines.append(command)
    return lines


def make_targets() -> list[str]:
    """`make <target>` for every target `make help` lists (its ## lines and the registry's stages)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = re.findall(r"^([a-z-]+):.*## ", makefile, re.M)
    stages = subprocess.run(
        [sys.executable, str(ROOT / "corpus_pipeline" / "engine" / "registry.py")],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    return [f"make {target}" for target in targets + stages]
