"""The base of every config model."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

# A config value that becomes one part of a path (a run id, a source or shard name): no separator,
# not `.` or `..`, not absolute, so `--set run_id=../../x` cannot write outside data_root.
PathPart = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=128)]

# A source or domain name ends up in directory names and mix groups: keep it to a plain word.
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class Strict(BaseModel):
    # allow_inf_nan=False: an interval or a size of `inf` or `nan` is a config error (exit 2), not
    # a traceback hours later from the thread that sleeps on it.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
