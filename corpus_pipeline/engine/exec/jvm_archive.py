"""A class-data archive of the embedded driver JVM (Java's AppCDS): the ~160 MB of classes a Spark
driver loads, written once to the user's cache and mapped by every later JVM instead of being
parsed and verified again. A `local[2]` session started in 8.3-8.5 s and now starts in 1.9-2.2 s
(this 2-core machine, three alternating starts of each; the first job after it 0.8-1.0 s).

The first session's JVM lists the classes it loads (`-XX:DumpLoadedClassList`, a name of its own).
At the Python process's exit `finish` ends that JVM, and a JVM of its own dumps the archive from the
list (`-Xshare:dump`, the first JVM's class path and options: 26-29 CPU s, ~910 MB, once). The
driver does not write the archive itself (`-XX:ArchiveClassesAtExit`) because that costs it ~550 MB
more as it exits: 1,835 MB at 1M documents, over `engine.memory_mb`'s 1.5 GB; the list costs it
nothing. A third JVM then maps the file (a cut archive crashes a JVM that maps it, SIGBUS: `java
-version` tells, 0.1-0.3 s), and only then is it renamed to its final name, which carries its size.
A file whose size is not the one in its name is never handed to a JVM. One process at a time writes
(a non-blocking flock); the others start without the archive. The key names what the archive is
valid for (the java binary, pyspark's jars, the JVM options, the heap): a JVM that cannot use it
anyway starts without it.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.user_cache import user_cache_dir

QUIET = "-Xlog:cds*=off"  # a JVM that cannot map an archive says so on stdout; it starts without it
PREFIX = "spark-driver-"
# The dump from the class list takes 26-29 s here (15,837 classes); one not done in this time is
# given up, as is a JVM that does not exit in it.
WRITE_SECONDS = 120
# Options of the first JVM that are about its own archive or its logging, not the archive's validity.
NOT_FOR_THE_DUMP = (
    "-XX:DumpLoadedClassList=",
    "-XX:SharedArchiveFile=",
    "-XX:ArchiveClassesAtExit=",
    "-Xlog:",
    "-Xshare:",
)
# Archives kept, the most recently used: one per key (a driver memory or JVM option of its own), so
# two configs used in turn (the tests' session and the CLI's) do not rewrite each other's.
KEPT = 4


@dataclass
class Creation:
    """An archive dumped from the class list this process's JVM writes, under `lock` until `finish`
    renames it. `class_path` and `arguments` are the JVM's, recorded once it runs (`record`)."""

    java: str
    temporary: Path
    directory: Path
    key: str
    lock: int  # the flock'ed file descriptor
    class_path: str = ""
    arguments: tuple[str, ...] = ()

    @property
    def class_list(self) -> Path:
        return self.temporary.with_suffix(".classlist")


def java_binary() -> str | None:
    """The java that spark-submit runs: $JAVA_HOME/bin/java, else the first on PATH."""
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / "java") if home else shutil.which("java")


def archive_key(java: str, jvm_options: str, driver_memory: str | None) -> str:
    import pyspark

    binary = Path(java).resolve()
    stat = binary.stat()
    jars = Path(pyspark.__file__).resolve().parent / "jars"
    parts = [str(binary), str(stat.st_size), str(stat.st_mtime_ns), pyspark.__version__, str(jars)]
    parts += [jvm_options, driver_memory or ""]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def archive_options(jvm_options: str, driver_memory: str | None) -> tuple[str, Creation | None]:
    """JVM options that use this key's archive, or that write it (with the Creation to `finish`),
    or none: no java, a cache path Spark's option parsing would split, or another process writing."""
    java = java_binary()
    directory = user_cache_dir("jvm")
    if java is None or not Path(java).is_file() or re.search(r"[\s\"']", str(directory)):
        return "", None
    key = archive_key(java, jvm_options, driver_memory)
    found = complete_archive(directory, key)
    if found is not None:
        try:
            os.utime(found)  # used: kept over the least recently used (KEPT)
        except OSError:
            pass
        return f"-XX:SharedArchiveFile={found} {QUIET}", None
    try:
        directory.mkdir(parents=True, exist_ok=True)
        lock = os.open(directory / f"{PREFIX}{key}.lock", os.O_CREAT | os.O_RDWR, 0o644)
    except OSError:
        return "", None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # another process is writing it
        os.close(lock)
        return "", None
    _remove_leftovers(directory, key)
    creation = Creation(java, directory / f"{PREFIX}{key}.{os.getpid()}.tmp", directory, key, lock)
    return f"-XX:DumpLoadedClassList={creation.class_list} {QUIET}", creation


def complete_archive(directory: Path, key: str) -> Path | None:
    """This key's archive whose size is the one its name records."""
    return next((path for path in directory.glob(f"{PREFIX}{key}-*.jsa") if _whole(path) is True), None)


def _whole(path: Path) -> bool | None:
    """Whether an archive's size is the one its name records; None when it is gone or not named so."""
    size = path.stem.rsplit("-", 1)[-1]
    try:
        return path.stat().st_size == int(size) if size.isdigit() else None
    except OSError:
        return None


def _remove_leftovers(directory: Path, key: str) -> None:
    """What killed processes left: this key's temporary archives and class lists (the caller holds
    the key's lock, so no living process writes them; another key's class list may belong to a run
    of hours, so it is left to that key's next writer), and any archive cut since it was renamed (a
    full disk, a copy of the cache stopped halfway): only an archive's writer renames it, whole, so
    a size that is not its name's is damage."""
    for path in directory.glob(f"{PREFIX}*"):
        try:
            temporary = path.name.startswith(f"{PREFIX}{key}.") and path.suffix in (".tmp", ".classlist")
            if temporary or (path.suffix == ".jsa" and _whole(path) is False):
                path.unlink()
        except OSError:
            continue


def _keep_recent(directory: Path) -> None:
    """The KEPT most recently used archives; one another process removed meanwhile is skipped."""
    used = []
    for path in directory.glob(f"{PREFIX}*.jsa"):
        try:
            used.append((path.stat().st_mtime, path))
        except OSError:
            continue
    for _, older in sorted(used)[:-KEPT]:
        older.unlink(missing_ok=True)


def finish_at_exit(creation: Creation, session) -> None:
    """Record the running JVM's class path and options, and `finish` the archive at exit."""
    from py4j.protocol import Py4JError

    jvm = getattr(session.sparkContext._gateway, "proc", None)
    if jvm is not None:
        try:
            record(creation, session.sparkContext._jvm)
        except Py4JError:  # no archive this time (finish then only releases the lock), not a failed command
            creation.class_path = ""
    atexit.register(finish, creation, jvm)


def record(creation: Creation, jvm) -> None:
    """The class path (expanded from pyspark's `jars/*`, in the order this JVM uses: an archive is
    valid only for the class path it was dumped with) and the options the dump must share."""
    runtime = jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    creation.class_path = str(jvm.java.lang.System.getProperty("java.class.path"))
    arguments = [str(argument) for argument in runtime.getInputArguments()]
    creation.arguments = tuple(a for a in arguments if not a.startswith(NOT_FOR_THE_DUMP))


def finish(creation: Creation, jvm: subprocess.Popen | None) -> Path | None:
    """End the JVM (its stdin closed: the gateway exits on EOF), dump the archive from its class list,
    check it maps, give it its final name and keep the KEPT most recently used archives. Returns the
    archive, or None (the temporary files are removed)."""
    try:
        if jvm is None or not creation.class_path:
            return None
        if jvm.stdin is not None:
            jvm.stdin.close()
        try:
            jvm.wait(timeout=WRITE_SECONDS)
        except subprocess.TimeoutExpired:
            return None
        if not creation.class_list.is_file():
            return None
        # Once per JVM setting, but ~25 s after the command's own work: said, not a silent wait.
        print(
            f"spark: writing the driver JVM's class archive to {creation.directory} (once)", file=sys.stderr, flush=True
        )
        dump = [creation.java, "-Xshare:dump", f"-XX:SharedClassListFile={creation.class_list}"]
        dump += [f"-XX:SharedArchiveFile={creation.temporary}", QUIET, *creation.arguments]
        dump += ["-cp", creation.class_path]
        # The classes it cannot archive (379 here, from signed jars) load from their jars later.
        if (
            subprocess.run(dump, capture_output=True, timeout=WRITE_SECONDS).returncode
            or not creation.temporary.is_file()
        ):
            return None
        check = [creation.java, f"-XX:SharedArchiveFile={creation.temporary}", QUIET, "-version"]
        if subprocess.run(check, capture_output=True, timeout=60).returncode != 0:
            return None
        final = creation.directory / f"{PREFIX}{creation.key}-{creation.temporary.stat().st_size}.jsa"
        os.replace(creation.temporary, final)
        _keep_recent(creation.directory)
        return final
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        creation.temporary.unlink(missing_ok=True)
        creation.class_list.unlink(missing_ok=True)
        os.close(creation.lock)
