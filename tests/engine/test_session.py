"""The embedded session (engine/exec/session.py): its JVM's heap is sized from engine.memory_mb, and
stopping it (`stop`) leaves no accumulator server behind and prints nothing, though it no longer
waits for the server's handler to see the shutdown."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import PROJECT_ROOT

from corpus_pipeline.engine.config import EngineConfig
from corpus_pipeline.engine.exec.session import JVM_BESIDE_HEAP_MB, embedded_heap

STOP = """
import json, threading
from corpus_pipeline.config import SparkConfig
from corpus_pipeline.engine.exec.session import get_spark, stop
spark = get_spark(SparkConfig(master="local[1]", conf={"spark.ui.enabled": "false"}), memory_mb=1_380)
heap = spark._jvm.java.lang.Runtime.getRuntime().maxMemory()
assert spark.sparkContext.parallelize([1, 2, 3], 1).map(lambda x: x * 2).sum() == 12
server = spark.sparkContext._accumulatorServer
stop(spark)
closing = [t for t in threading.enumerate() if t.name == "accumulator-server-close"]
for thread in closing:
    thread.join(timeout=10)
print(json.dumps({
    "heap_mb": heap / 2**20,
    "closers": len(closing),
    "closer_alive": any(t.is_alive() for t in closing),
    "listening_socket": server.socket.fileno(),
    "jvm_context": spark.sparkContext._jsc is not None,
}))
"""


def test_the_heap_is_what_the_memory_budget_leaves_beside_the_jvm():
    assert embedded_heap(EngineConfig().memory_mb) == f"{EngineConfig().memory_mb - JVM_BESIDE_HEAP_MB}m"
    assert embedded_heap(4_096) == f"{4_096 - JVM_BESIDE_HEAP_MB}m"
    assert embedded_heap(256) == "512m"  # Spark's floor, whatever the budget


@pytest.mark.spark
def test_a_session_has_its_budgeted_heap_and_stops_quietly():
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, "-c", STOP], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "EOFError" not in done.stderr, done.stderr[-3000:]
    state = json.loads(done.stdout.strip().splitlines()[-1])
    # 1,380 - 768 = 612 MiB of -Xmx; the serial collector reports it less one survivor space.
    assert 0.9 * 612 <= state.pop("heap_mb") <= 612
    assert state == {"closers": 1, "closer_alive": False, "listening_socket": -1, "jvm_context": False}
