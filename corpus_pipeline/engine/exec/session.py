"""The SparkSession: `local[*]` inside the CLI by default, and unchanged under spark-submit."""

from __future__ import annotations

import atexit
import os
import sys
import threading

from corpus_pipeline.engine.exec import jvm_archive
from corpus_pipeline.engine.exec.spark_config import SparkConfig

# Rows per Arrow batch handed to Python: HTML rows reach 1-10 MB, so Spark's default of 10,000
# could put gigabytes in one batch; 256 keeps a batch in the tens of MB.
ARROW_BATCH_ROWS = "256"
QUICK_START_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
# What an embedded JVM holds besides its heap: classes, the class archive, compiled code, threads,
# Arrow's and the shuffle's buffers. Dedup's JVM at 858,219 documents peaked at 1,554-1,586 MB under
# Spark's default -Xmx1g (~550 MB beside the heap), at 1,202-1,242 MB with the 768 MB heap this
# leaves of the default engine.memory_mb (1,193 in the run whose first session leaves the class
# archive behind: jvm_archive.py).
JVM_BESIDE_HEAP_MB = 768
# Spark refuses a heap under 450 MB (1.5x the 300 MB it reserves for itself).
MIN_DRIVER_HEAP_MB = 512


def launched_by_spark_submit() -> bool:
    # spark-submit starts the Python driver with the gateway it already created.
    return "PYSPARK_GATEWAY_PORT" in os.environ


def embedded_heap(memory_mb: int) -> str:
    """spark.driver.memory of an embedded session whose process may use `memory_mb` (engine.memory_mb)
    in all: its tasks run inside that JVM, so the heap is what the JVM's other memory leaves."""
    return f"{max(memory_mb - JVM_BESIDE_HEAP_MB, MIN_DRIVER_HEAP_MB)}m"


def get_spark(config: SparkConfig | None = None, memory_mb: int | None = None):
    """The session of `config`; an embedded one (no spark-submit) sized to `memory_mb` (the run's
    engine.memory_mb; None: Spark's own default heap) unless spark.conf sets spark.driver.memory."""
    from pyspark.sql import SparkSession

    config = config or SparkConfig()
    # Executors must run the interpreter that has this project installed, not whatever `python3`
    # is first on PATH; spark-submit users set these themselves (see the README).
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(config.app_name)
    conf = dict(config.conf)
    creation = None
    if not launched_by_spark_submit():
        builder = builder.master(config.master)
        builder = builder.config("spark.ui.showConsoleProgress", "true")
        if config.master.startswith("local"):
            # Embedded mode talks to itself only: without this Spark binds the driver to the first
            # non-loopback interface it finds when the hostname resolves to 127.0.0.1.
            builder = builder.config("spark.driver.host", "127.0.0.1")
            builder = builder.config("spark.driver.bindAddress", "127.0.0.1")
            if memory_mb is not None:
                conf.setdefault("spark.driver.memory", embedded_heap(memory_mb))
            if config.quick_start_jvm:
                options = f"{QUICK_START_JVM} {conf.get('spark.driver.extraJavaOptions', '')}".strip()
                memory = conf.get("spark.driver.memory")
                archive, creation = ("", None) if _jvm_running() else jvm_archive.archive_options(options, memory)
                conf["spark.driver.extraJavaOptions"] = f"{options} {archive}".strip()
    builder = builder.config("spark.sql.execution.arrow.maxRecordsPerBatch", ARROW_BATCH_ROWS)
    for key, value in conf.items():
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except BaseException:
        if creation is not None:
            jvm_archive.finish(creation, None)  # no JVM to write the archive: the lock released
        raise
    if creation is not None:
        jvm_archive.finish_at_exit(creation, session)
    if session.sparkContext not in _STOPPED_AT_EXIT:
        _STOPPED_AT_EXIT.add(session.sparkContext)
        # Registered after finish_at_exit, so it runs first (atexit is last in, first out): the
        # session stops before the archive's writer ends the JVM.
        atexit.register(stop, session)
    session.sparkContext.setLogLevel(config.log_level)
    return session


# The SparkContexts whose stop is registered at exit: once each, however often get_spark returns one.
_STOPPED_AT_EXIT: set = set()


def stop(session) -> None:
    """Stop the session without waiting on its accumulator server. The server's handler polls the
    JVM's accumulator connection once a second until told the server shuts down, so pyspark's stop()
    (which shuts the server down after the JVM) and a shutdown before it both wait up to that second:
    0.97-0.98 s of a 1.1 s stop in three local[2] stops. Told now, the handler ends at its next poll
    in a thread of its own; the EOFError it may read from the connection the JVM closes is not
    printed (a command that succeeded would end with a traceback)."""
    context = session.sparkContext
    if context._jsc is None:
        return  # stopped already (by its user, or by a test's fixture)
    server = getattr(context, "_accumulatorServer", None)
    if server is not None:
        server.server_shutdown = True
        server.handle_error = _ignore_request_error
        context._accumulatorServer = None
        threading.Thread(target=_close_server, args=(server,), name="accumulator-server-close", daemon=True).start()
    session.stop()


def _ignore_request_error(request, client_address) -> None:
    """The closed connection the handler of a stopping accumulator server reads (EOFError)."""


def _close_server(server) -> None:
    server.shutdown()  # returns once the handler's poll has seen the flag: at most a second
    server.server_close()


def _jvm_running() -> bool:
    """A JVM this process started earlier (a session stopped and made again): it keeps the options
    it started with, so no archive is looked for or written for it."""
    from pyspark import SparkContext

    return SparkContext._gateway is not None
