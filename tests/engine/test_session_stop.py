"""Stopping a session (engine/exec/session.py `stop`) leaves no accumulator server behind and prints
nothing, though it no longer waits for the server's handler to see the shutdown."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import PROJECT_ROOT

STOP = """
import json, threading
from corpus_pipeline.config import SparkConfig
from corpus_pipeline.engine.exec.session import get_spark, stop
spark = get_spark(SparkConfig(master="local[1]", conf={"spark.ui.enabled": "false"}))
assert spark.sparkContext.parallelize([1, 2, 3], 1).map(lambda x: x * 2).sum() == 12
server = spark.sparkContext._accumulatorServer
stop(spark)
closing = [t for t in threading.enumerate() if t.name == "accumulator-server-close"]
for thread in closing:
    thread.join(timeout=10)
print(json.dumps({
    "closers": len(closing),
    "closer_alive": any(t.is_alive() for t in closing),
    "listening_socket": server.socket.fileno(),
    "jvm_context": spark.sparkContext._jsc is not None,
}))
"""


@pytest.mark.spark
def test_stop_closes_the_accumulator_server_quietly():
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    done = subprocess.run(
        [sys.executable, "-c", STOP], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "EOFError" not in done.stderr, done.stderr[-3000:]
    state = json.loads(done.stdout.strip().splitlines()[-1])
    assert state == {"closers": 1, "closer_alive": False, "listening_socket": -1, "jvm_context": False}
