"""The `spark:` section: the Spark session a run starts when spark-submit did not."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from corpus_pipeline.config_base import Strict


class SparkConfig(Strict):
    # Used only when the job is not launched by spark-submit (which sets spark.master itself).
    master: str = "local[*]"
    app_name: str = "corpus_pipeline"
    log_level: Literal["ERROR", "WARN", "INFO", "DEBUG"] = "WARN"
    # Extra `spark.*` settings, e.g. {"spark.executor.memory": "8g"}.
    conf: dict[str, str] = Field(default_factory=dict)
    # Embedded local[...] mode only (never under spark-submit): the JVM lives for one run, so the C1
    # compiler alone and the serial collector (C2 compiler threads never pay off in a run of minutes;
    # a short spark-submit job: 39 -> 23 CPU s), and its classes mapped from an archive written once
    # in ~/.cache/corpus_pipeline/jvm (~160 MB; engine/exec/jvm_archive.py: a session in 1.9-2.2 s instead
    # of 8.3-8.5). False for a local[*] run of hours on a big machine.
    quick_start_jvm: bool = True
