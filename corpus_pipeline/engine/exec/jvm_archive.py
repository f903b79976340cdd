"""A class-data archive of the embedded driver JVM (Java's AppCDS): the ~110 MB of classes a Spark
driver loads, written once to the user's cache and mapped by every later JVM instead of being
parsed and verified again. A `local[2]` session started in 8.3-8.5 s and now starts in 4.1-4.4 s
(this 2-core machine, six alternating starts; the first job after it 2.5-2.9 s either way).

The first session has its JVM write the archive when it exits (`-XX:ArchiveClassesAtExit`, a name
of its own); at the Python process's exit `finish` ends the JVM, waits for the write, has a second
JVM map the file (a cut archive crashes a JVM that maps it, SIGBUS: `java -version` tells, 0.1-0.3 s)
and only then renames it to its final name, which carries its size. A file whose size is not the
one in its name is never handed to a JVM. One process at a time writes (a non-blocking flock); the
others start without the archive. The key names what the archive is valid for (the java binary,
pyspark's jars, the JVM options, the heap): a JVM that cannot use it anyway starts without it.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from corpus_pipeline.user_cache import user_cache_dir

QUIET = "-Xlog:cds*=off"  # a JVM that cannot map an archive says so on stdout; it starts without it
PREFIX = "spark-driver-"
# A temporary archive older than this was left by a process that was killed before renaming it.
STALE_SECONDS = 15 * 60
# The session that writes the archive starts ~5 s slower (13.8 s against 8.3-8.5) and its process
# ends ~11 s after the session stops, the write and the check (this machine); an archive not written
# in this time is given up.
WRITE_SECONDS = 120
# Archives kept, the most recently used: one per key (a driver memory or JVM option of its own), so
# two configs used in turn (the tests' session and the CLI's) do not rewrite each other's.
KEPT = 4


@dataclass
class Creation:
    """An archive this process's JVM writes at its exit, under `lock` until `finish` renames it."""

    java: str
    temporary: Path
    directory: Path
    key: str
    lock: int  # the flock'ed file descriptor


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
    _remove_stale(directory)
    temporary = directory / f"{PREFIX}{key}.{os.getpid()}.tmp"
    return f"-XX:ArchiveClassesAtExit={temporary} {QUIET}", Creation(java, temporary, directory, key, lock)


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


def _remove_stale(directory: Path) -> None:
    """Temporary archives of killed processes, and archives cut since they were renamed (a full disk,
    a copy of the cache stopped halfway): only an archive's writer renames it, whole, so a size that
    is not its name's is damage."""
    now = time.time()
    for path in directory.glob(f"{PREFIX}*"):
        try:
            stale = path.suffix == ".tmp" and now - path.stat().st_mtime > STALE_SECONDS
            if stale or (path.suffix == ".jsa" and _whole(path) is False):
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


def finish_at_exit(creation: Creation, jvm: subprocess.Popen | None) -> None:
    atexit.register(finish, creation, jvm)


def finish(creation: Creation, jvm: subprocess.Popen | None) -> Path | None:
    """End the JVM (its stdin closed: the gateway exits on EOF), wait for its archive, check it maps,
    give it its final name and keep the KEPT most recently used archives. Returns the archive, or
    None (the temporary file is removed)."""
    try:
        if jvm is None:
            return None
        if jvm.stdin is not None:
            jvm.stdin.close()
        try:
            jvm.wait(timeout=WRITE_SECONDS)
        except subprocess.TimeoutExpired:
            return None
        if not creation.temporary.is_file():
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
        os.close(creation.lock)
