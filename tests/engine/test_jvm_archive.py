"""The driver JVM's class-data archive (engine/exec/jvm_archive.py): written once, used after, never a cut
file handed to a JVM (one that maps a cut archive dies of SIGBUS)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import PROJECT_ROOT

from corpus_pipeline.engine.exec import jvm_archive

OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "corpus_pipeline" / "jvm"


def _key() -> str:
    return jvm_archive.archive_key(jvm_archive.java_binary(), OPTIONS, None)


def test_no_archive_yet_one_process_writes_it_the_others_start_without(cache):
    options, creation = jvm_archive.archive_options(OPTIONS, None)
    assert options.split()[0] == f"-XX:DumpLoadedClassList={creation.class_list}"
    assert creation.temporary.parent == creation.class_list.parent == cache and creation.key == _key()
    # a second writer while the first holds the lock: none
    assert jvm_archive.archive_options(OPTIONS, None) == ("", None)
    assert jvm_archive.finish(creation, None) is None  # no JVM: nothing renamed, the lock released
    assert jvm_archive.archive_options(OPTIONS, None)[1] is not None


def test_an_archive_is_used_only_at_the_size_its_name_records(cache):
    cache.mkdir(parents=True)
    cut = cache / f"{jvm_archive.PREFIX}{_key()}-4096.jsa"
    cut.write_bytes(b"\0" * 1000)  # a cut archive: its name says 4,096 bytes
    options, creation = jvm_archive.archive_options(OPTIONS, None)
    assert "SharedArchiveFile" not in options and creation is not None
    assert not cut.exists()  # removed by the process that writes the archive again
    jvm_archive.finish(creation, None)
    whole = cache / f"{jvm_archive.PREFIX}{_key()}-1000.jsa"
    whole.write_bytes(b"\0" * 1000)
    assert jvm_archive.archive_options(OPTIONS, None) == (f"-XX:SharedArchiveFile={whole} {jvm_archive.QUIET}", None)


def test_a_dump_that_fails_leaves_no_archive_and_no_list(cache):
    """A class list the dump cannot read (a JVM killed as it wrote it): nothing renamed, the class list
    and the temporary archive removed, the lock released for the next process to try."""
    options, creation = jvm_archive.archive_options(OPTIONS, None)
    creation.class_list.write_text("not/a/Class id: x super: y\n\0\0")
    creation.class_path, creation.arguments = str(cache / "missing.jar"), ("-Xmx64m",)
    exited = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    assert jvm_archive.finish(creation, exited) is None
    assert sorted(p.name for p in cache.iterdir()) == [f"{jvm_archive.PREFIX}{_key()}.lock"]
    assert jvm_archive.archive_options(OPTIONS, None)[1] is not None


def test_a_jvm_that_cannot_be_asked_its_class_path_fails_no_command(cache, monkeypatch):
    """py4j failing as the archive's bookkeeping asks the running JVM: no archive this time, the
    lock released at exit, and get_spark's caller never sees the error."""
    from py4j.protocol import Py4JError

    class Gone:
        def __getattr__(self, name):
            raise Py4JError("the gateway is gone")

    _, creation = jvm_archive.archive_options(OPTIONS, None)
    exited = subprocess.Popen(["true"], stdin=subprocess.PIPE)
    context = SimpleNamespace(_gateway=SimpleNamespace(proc=exited), _jvm=Gone())
    registered = []
    monkeypatch.setattr(jvm_archive.atexit, "register", lambda *args: registered.append(args))
    jvm_archive.finish_at_exit(creation, SimpleNamespace(sparkContext=context))
    ((finish, *arguments),) = registered
    assert finish(*arguments) is None and not list(cache.glob("*.jsa"))
    _, again = jvm_archive.archive_options(OPTIONS, None)
    assert again is not None  # the lock was released
    jvm_archive.finish(again, None)


def test_what_killed_writers_left_is_removed_but_not_another_key_s_list_in_use(cache):
    """Holding its key's lock, a writer removes that key's leftovers whatever their age; another
    key's class list may be a long run's, written as its classes load."""
    cache.mkdir(parents=True)
    mine = [cache / f"{jvm_archive.PREFIX}{_key()}.1234.tmp", cache / f"{jvm_archive.PREFIX}{_key()}.1234.classlist"]
    theirs = cache / f"{jvm_archive.PREFIX}otherkey.5678.classlist"
    for path in [*mine, theirs]:
        path.write_text("x")
    _, creation = jvm_archive.archive_options(OPTIONS, None)
    assert not any(path.exists() for path in mine) and theirs.exists()
    jvm_archive.finish(creation, None)


def test_other_options_or_another_heap_are_another_archive():
    java = jvm_archive.java_binary()
    keys = {jvm_archive.archive_key(java, o, m) for o in (OPTIONS, "-XX:+UseG1GC") for m in (None, "8g")}
    assert len(keys) == 4


SESSION = """
import json, os
from corpus_pipeline.config import SparkConfig
from corpus_pipeline.engine.exec.session import get_spark
spark = get_spark(SparkConfig(master="local[1]", conf={"spark.ui.enabled": "false"}))
assert spark.sparkContext.parallelize([1, 2, 3], 1).map(lambda x: x * 2).sum() == 12
runtime = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
print(json.dumps([str(a) for a in runtime.getInputArguments()]))
"""  # no spark.stop(), as a CLI verb ends: get_spark stops the session at exit


def _session_arguments(cache_home: Path) -> list[str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache_home), "SPARK_LOCAL_IP": "127.0.0.1"}
    done = subprocess.run(
        [sys.executable, "-c", SESSION], env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # The session stops before its JVM ends (an archive's first session waits for that JVM at exit).
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.spark
@pytest.mark.slow
def test_the_first_session_writes_the_archive_and_the_next_maps_it(tmp_path):
    """Two fresh processes (a JVM takes its options once); the cut archive's case, whose JVM would
    die of SIGBUS, is the size rule's test above."""
    cache = tmp_path / "corpus_pipeline" / "jvm"
    first = _session_arguments(tmp_path)
    # The driver lists its classes; a JVM of its own dumps them once the driver exited.
    assert any(a.startswith("-XX:DumpLoadedClassList=") for a in first)
    assert not any(a.startswith("-XX:ArchiveClassesAtExit=") for a in first)
    (archive,) = cache.glob("*.jsa")  # renamed once a third JVM mapped it
    assert archive.stat().st_size == int(archive.stem.rsplit("-", 1)[1]) > 10_000_000
    assert not list(cache.glob("*.tmp")) and not list(cache.glob("*.classlist"))

    second = _session_arguments(tmp_path)
    assert f"-XX:SharedArchiveFile={archive}" in second


def test_the_most_recently_used_archives_are_kept(cache):
    cache.mkdir(parents=True)
    for age in range(jvm_archive.KEPT + 2):
        path = cache / f"{jvm_archive.PREFIX}key{age}-3.jsa"
        path.write_bytes(b"abc")
        os.utime(path, (1_000_000 - age, 1_000_000 - age))
    jvm_archive._keep_recent(cache)
    assert sorted(p.name for p in cache.glob("*.jsa")) == [
        f"{jvm_archive.PREFIX}key{age}-3.jsa" for age in range(jvm_archive.KEPT)
    ]
