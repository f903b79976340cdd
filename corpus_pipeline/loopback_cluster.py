"""A real Spark standalone cluster on loopback for the tests and benchmarks: one master and its
workers, started with `spark-class` from the pip-installed pyspark, each in its own process group so
that teardown also ends the executor JVMs and Python workers they forked. Never bound to any address
but 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

# A JVM start costs 3-8 s on an idle core; four agents share two cores here, so the worker may need
# several times that to start and register.
REGISTRATION_TIMEOUT_S = 90
# After SIGTERM a master or worker normally exits within 1-2 s; a worker first kills its executors.
STOP_GRACE_S = 15
# Every JVM here lives for seconds on a few kilobytes of data: the C1 compiler alone and the serial
# collector cut the CPU of a `spark-submit jobs/extract.py` from 39 s to 23 s (measured on this test's
# WARCs, local[1], two runs each), most of it C2 compiler threads that never pay off.
SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def spark_home() -> Path:
    from pyspark.find_spark_home import _find_spark_home

    return Path(_find_spark_home())


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def spark_env(root: Path) -> dict[str, str]:
    """Loopback only, this interpreter for every Python worker, and every Spark file under `root`."""
    conf_dir = root / "conf"  # empty: no spark-defaults.conf or spark-env.sh of the machine leaks in
    conf_dir.mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "SPARK_HOME": str(spark_home()),
        "SPARK_CONF_DIR": str(conf_dir),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_LOCAL_DIRS": str(root / "local"),
        "SPARK_LOG_DIR": str(root / "logs"),
        "SPARK_PID_DIR": str(root / "pids"),
        "SPARK_DAEMON_JAVA_OPTS": SHORT_LIVED_JVM,
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
    }


@dataclass
class StandaloneCluster:
    master_url: str
    webui_url: str
    env: dict[str, str]
    root: Path
    # name -> (process, its log): checked while waiting, so a crashed daemon fails fast with its log
    daemons: dict[str, tuple[subprocess.Popen, Path]]
    workers: int = 1  # how many were started: wait_for_workers() waits for them all

    def wait_for_worker(self) -> dict:
        """Block until the master lists a worker as ALIVE; returns the master's record of it."""
        return wait_for_workers(self.webui_url, self.daemons, 1)[0]

    def wait_for_workers(self) -> list[dict]:
        """Block until the master lists every worker started here as ALIVE; their records."""
        return wait_for_workers(self.webui_url, self.daemons, self.workers)

    def submit(self, job: Path, args: list[str], name: str, timeout_s: int = 300) -> subprocess.CompletedProcess:
        """spark-submit `job` to this cluster; output goes to `<root>/<name>.log`."""
        command = [
            str(spark_home() / "bin" / "spark-submit"),
            "--master",
            self.master_url,
            "--conf",
            "spark.ui.enabled=false",
            "--driver-java-options",
            SHORT_LIVED_JVM,
            "--conf",
            f"spark.executor.extraJavaOptions={SHORT_LIVED_JVM}",
            # One executor of 1 core and 512 MB fits the worker's 1 core and 1 GB.
            "--conf",
            "spark.executor.memory=512m",
            "--conf",
            "spark.sql.shuffle.partitions=4",
            str(job),
            *args,
        ]
        return run_logged(command, self.env, self.root / f"{name}.log", timeout_s)


def ended_with_this_process(command: list[str]) -> list[str]:
    """`command` that the kernel sends SIGTERM when this process dies, even by SIGKILL (a CI timeout)
    which skips every `finally` (spark-class and spark-submit exec their JVM, which keeps the setting)."""
    if shutil.which("setpriv") is None:  # util-linux; absent on macOS, where `finally` must do
        return command
    return ["setpriv", "--pdeathsig", "TERM", *command]


def run_logged(command: list[str], env: dict[str, str], log: Path, timeout_s: int) -> subprocess.CompletedProcess:
    """Run `command` in its own process group (spark-submit's JVM forks the Python driver), output to
    `log`; on timeout or any error the whole group is stopped before the exception propagates."""
    with open(log, "w") as stream:
        process = subprocess.Popen(
            ended_with_this_process(command), env=env, stdout=stream, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        return subprocess.CompletedProcess(command, process.wait(timeout=timeout_s))
    finally:
        stop_process_group(process)


def log_tail(path: Path, chars: int = 4000) -> str:
    return path.read_text(errors="replace")[-chars:] if path.exists() else f"({path} was never written)"


@contextmanager
def spark_daemon(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen]:
    """A `spark-class` process in a new session; its whole process group is ended on exit."""
    command = ended_with_this_process([str(spark_home() / "bin" / "spark-class"), *args])
    with open(log, "w") as stream:
        process = subprocess.Popen(command, env=env, stdout=stream, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield process
    finally:
        stop_process_group(process)


def stop_process_group(process: subprocess.Popen) -> None:
    """SIGTERM the group, give its leader STOP_GRACE_S to exit, then SIGKILL what is left of the group
    (an executor's Python workers can outlive the worker JVM that started them)."""
    signal_group(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    signal_group(process.pid, signal.SIGKILL)
    process.wait()


def signal_group(group_id: int, sig: signal.Signals) -> None:
    try:
        os.killpg(group_id, sig)
    except ProcessLookupError:  # the whole group has already exited
        pass


def alive_workers(webui_url: str) -> list[dict]:
    """Workers the master lists as ALIVE, from the master UI's JSON endpoint."""
    with urllib.request.urlopen(f"{webui_url}/json/", timeout=5) as response:
        state = json.load(response)
    return [worker for worker in state.get("workers", []) if worker.get("state") == "ALIVE"]


def wait_for_workers(webui_url: str, daemons: dict[str, tuple[subprocess.Popen, Path]], count: int) -> list[dict]:
    deadline = time.monotonic() + REGISTRATION_TIMEOUT_S
    while time.monotonic() < deadline:
        for name, (process, log) in daemons.items():
            if process.poll() is not None:
                raise RuntimeError(f"the {name} exited with {process.returncode}:\n{log_tail(log)}")
        try:
            workers = alive_workers(webui_url)
        except OSError:  # the master's UI is not listening yet
            workers = []
        if len(workers) >= count:
            return workers
        time.sleep(0.5)
    logs = "\n".join(f"--- {name}:\n{log_tail(log)}" for name, (_, log) in daemons.items())
    raise TimeoutError(f"not {count} worker(s) registered with the master within {REGISTRATION_TIMEOUT_S} s\n{logs}")


@contextmanager
def standalone_cluster(root: Path, workers: int = 1, worker_memory: str = "1g") -> Iterator[StandaloneCluster]:
    """Start a master and `workers` workers (1 core and `worker_memory` each) on 127.0.0.1 and yield
    at once (the JVMs start while the caller works); `wait_for_workers()` before submitting. All are
    stopped on exit."""
    root.mkdir(parents=True, exist_ok=True)
    env = spark_env(root)
    port, webui_port = free_port(), free_port()
    master_url, webui_url = f"spark://127.0.0.1:{port}", f"http://127.0.0.1:{webui_port}"
    with ExitStack() as stack:
        master_log = root / "master.log"
        master = stack.enter_context(
            spark_daemon(
                [
                    "org.apache.spark.deploy.master.Master",
                    *("--host", "127.0.0.1", "--port", str(port), "--webui-port", str(webui_port)),
                ],
                env,
                master_log,
            )
        )
        daemons = {"master": (master, master_log)}
        for number in range(workers):
            name, log = f"worker-{number}", root / f"worker-{number}.log"
            # Each worker its own folder for its executors (work/<name>/<app>/<executor>).
            worker_env = {**env, "SPARK_WORKER_DIR": str(root / "work" / name)}
            worker = stack.enter_context(
                spark_daemon(
                    [
                        "org.apache.spark.deploy.worker.Worker",
                        master_url,
                        *("--host", "127.0.0.1", "--cores", "1", "--memory", worker_memory),
                        *("--webui-port", str(free_port())),
                    ],
                    worker_env,
                    log,
                )
            )
            daemons[name] = (worker, log)
        yield StandaloneCluster(master_url, webui_url, env, root, daemons, workers)
