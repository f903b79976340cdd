"""`Storage`: open, size, identify, list, write and delete files, local or `s3://bucket/key`, by one
config.

A stage holds one Storage (its config only: it is pickled to Spark executors, where the S3 client is
made again, once per process). Every call takes a local path or an `s3://` URI, so the code above
(the stage store, the readers, the index, the snapshots) has one code path; a local path goes
straight to `open`, `os.stat` and `os.replace` (storage/local_files.py), at the cost of a plain
file operation.
"""

from __future__ import annotations

import functools
import io
import json
import os
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO

from pyarrow import fs

import corpus_pipeline.storage.local_files as local_files
from corpus_pipeline.config.storage import StorageConfig
from corpus_pipeline.storage.errors import access_error, missing_bucket
from corpus_pipeline.storage.object_reader import RetryingObjectReader

S3_SCHEME = "s3://"
_IN_FLIGHT = 16


def is_object_uri(path: object) -> bool:
    return str(path).startswith(S3_SCHEME)


def split_uri(uri: str) -> tuple[str, str]:
    """`s3://bucket/some/key` -> ("bucket", "some/key")."""
    bucket, _, key = uri[len(S3_SCHEME) :].partition("/")
    if not bucket:
        raise ValueError(f"{uri}: no bucket named (expected s3://bucket/key)")
    return bucket, key


# The variables the AWS SDK reads: a client is made again when one of them changes in the process.
_AWS_VARIABLES = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_S3",
)


def s3_filesystem(config: StorageConfig) -> fs.S3FileSystem:
    """One client per process, config and AWS environment. Credentials are left to the AWS SDK's
    default chain (environment, AWS_PROFILE and ~/.aws, instance and container roles), never
    passed by us."""
    return _s3_filesystem(config, tuple(os.environ.get(name) for name in _AWS_VARIABLES))


@functools.lru_cache(maxsize=8)
def _s3_filesystem(config: StorageConfig, aws_environment: tuple) -> fs.S3FileSystem:
    # `aws_environment` is only the cache key (held in memory, never printed); the SDK reads the
    # variables itself. Its standard retry strategy (3 tries a request) runs inside each of our attempts.
    env = os.environ.get
    options: dict = {
        "region": config.region or env("AWS_REGION") or env("AWS_DEFAULT_REGION") or "us-east-1",
        "anonymous": config.anonymous,
    }
    endpoint = config.endpoint_url or env("AWS_ENDPOINT_URL_S3") or env("AWS_ENDPOINT_URL")
    if endpoint:
        options["endpoint_override"] = endpoint
    return fs.S3FileSystem(**options)


class Storage:
    def __init__(self, config: StorageConfig | None = None):
        # No process-wide default: whoever makes a Storage passes the run's `storage:` config (or
        # means the default one: the AWS SDK's credential chain, no endpoint).
        self.config = config or StorageConfig()
        # What a listing already told about each object (size, mtime): identity would otherwise ask
        # again, one HEAD request per object, where a listing answers for 1,000 objects at once.
        self._infos: dict[str, fs.FileInfo] = {}

    def __getstate__(self) -> dict:
        return {"config": self.config}  # no client, no cache: rebuilt in the executor

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["config"])

    def s3(self) -> fs.S3FileSystem:
        return s3_filesystem(self.config)

    def open(self, path: str) -> BinaryIO:
        """A buffered binary stream; an object is opened and read in `read_block_bytes` blocks,
        each retried, then ObjectReadError (an OSError, the readers' read fault)."""
        if not is_object_uri(path):
            return open(path, "rb")  # noqa: SIM115 - closed by the caller's context
        key = "/".join(split_uri(path))
        try:
            reader = RetryingObjectReader(path, lambda: self.s3().open_input_file(key), self.config)
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: no such object") from None
        return io.BufferedReader(reader, buffer_size=self.config.read_block_bytes)

    def parquet_source(self, path: str):
        """What pyarrow.parquet opens: the local path itself (memory-mapped reads), or the object."""
        return self.open(path) if is_object_uri(path) else path

    def exists(self, path: str) -> bool:
        if not is_object_uri(path):
            return os.path.isfile(path)
        try:
            self.info(path)
            return True
        except FileNotFoundError:
            return False

    def size(self, path: str) -> int:
        return self.info(path).size if is_object_uri(path) else os.path.getsize(path)

    def identity(self, path: str) -> str:
        """What a task plan and a fingerprint know an input file by: path, size and modification
        time (hashing 100 GB of WARC to decide whether to skip would cost as much as the stage).
        An object: its URI, size and Last-Modified, from the listing when it listed it."""
        if not is_object_uri(path):
            stat = os.stat(path)
            return f"{os.path.abspath(path)}|{stat.st_size}|{stat.st_mtime_ns}"
        info = self.info(path)
        return f"{path}|{info.size}|{info.mtime_ns}"

    def info(self, uri: str) -> fs.FileInfo:
        """The object's FileInfo; FileNotFoundError when there is none (a prefix is none either),
        StorageAccessError when the bucket is missing or refuses us."""
        if uri in self._infos:
            return self._infos[uri]
        bucket, key = split_uri(uri)
        info = self._ask(bucket, lambda: self.s3().get_file_info(f"{bucket}/{key}"))
        if info.type != fs.FileType.File:
            if info.type == fs.FileType.NotFound:
                self._check_bucket(bucket)
            raise FileNotFoundError(f"{uri}: no such object")
        self._infos[uri] = info
        return info

    def list_prefix(self, bucket: str, prefix: str) -> list[str]:
        """The URIs of every object under `prefix` (a "directory": `prefix/...`), remembered for identity."""
        selector = fs.FileSelector(f"{bucket}/{prefix}".rstrip("/"), recursive=True, allow_not_found=True)
        infos = self._ask(bucket, lambda: self.s3().get_file_info(selector))
        uris = []
        for info in infos:
            if info.type == fs.FileType.File:
                uri = S3_SCHEME + info.path
                self._infos[uri] = info
                uris.append(uri)
        return uris

    # Writes, for stage outputs on a store (engine/store/object_stage.py). An object PUT is atomic: a reader
    # sees the whole object or none, which is what the commit protocol (schemas/stage_dir.md) rests on.

    def read_bytes(self, uri: str) -> bytes:
        """A small file or object (a manifest, a commit record) whole, in one GET; FileNotFoundError
        when absent, StorageAccessError when the bucket is missing or refuses us."""
        if not is_object_uri(uri):
            return local_files.read_bytes(str(uri))
        bucket, key = split_uri(uri)

        def get() -> bytes:
            with self.s3().open_input_stream(f"{bucket}/{key}") as stream:
                return stream.read()

        try:
            return self._ask(bucket, get)
        except FileNotFoundError:
            raise FileNotFoundError(f"{uri}: no such object") from None

    def put_bytes(self, uri: str, data: bytes) -> None:
        """Written whole: a reader sees the old content or the new, never part (locally a temporary
        file renamed into place; an object PUT is atomic by itself)."""
        if not is_object_uri(uri):
            return local_files.put_bytes(str(uri), data)
        bucket, key = split_uri(uri)
        self._ask(bucket, lambda: self._put(f"{bucket}/{key}", data))

    def _put(self, key: str, data: bytes) -> None:
        with self.s3().open_output_stream(key, metadata={}) as stream:
            stream.write(data)

    def put_file(self, local: str, uri: str) -> None:
        """Upload a local file (pyarrow streams it in multipart parts of 10 MiB, in C++); locally a
        copy renamed into place."""
        if not is_object_uri(uri):
            return local_files.put_file(local, str(uri))
        bucket, key = split_uri(uri)
        self._ask(
            bucket,
            lambda: fs.copy_files(local, f"{bucket}/{key}", destination_filesystem=self.s3(), chunk_size=8 << 20),
        )
        self._infos.pop(uri, None)

    def get_file(self, uri: str, local: str) -> None:
        """Download an object to a local file, through the retrying reader."""
        with self.open(uri) as source, open(local, "wb") as target:
            while block := source.read(self.config.read_block_bytes):
                target.write(block)

    def read_many(self, uris: list[str]) -> list[bytes]:
        """Small objects (a stage's commit records), `_IN_FLIGHT` GETs at a time, in order."""
        return self._each(self.read_bytes, uris)

    def delete(self, uris: list[str]) -> None:
        """Delete objects (one already gone is no error)."""
        self._each(self._delete_one, uris)

    def _delete_one(self, uri: str) -> None:
        if not is_object_uri(uri):
            return local_files.delete(str(uri))
        bucket, key = split_uri(uri)
        self._unless_gone(bucket, lambda: self.s3().delete_file(f"{bucket}/{key}"))
        self._infos.pop(uri, None)

    @staticmethod
    def _each(request, uris: list[str]) -> list:
        # A request is a round trip of ~10-50 ms on S3 and the C++ client releases the GIL: with 16
        # in flight the 10,000 records of a 10,000-task stage take seconds, one at a time minutes.
        if len(uris) < 2:
            return [request(uri) for uri in uris]
        with ThreadPoolExecutor(max_workers=_IN_FLIGHT) as pool:
            return list(pool.map(request, uris))

    def delete_prefix(self, uri: str) -> None:
        """Every object under `uri/` (a batch DeleteObjects per 1,000 keys), folder markers included;
        locally the folder."""
        if not is_object_uri(uri):
            return local_files.delete_folder(str(uri))
        bucket, key = split_uri(uri)
        self._unless_gone(bucket, lambda: self.s3().delete_dir(f"{bucket}/{key}"))

    def list_under(self, uri: str) -> list[str]:
        """The URIs of every object under the "folder" `uri` (`uri/...`); locally every file under
        the folder, sorted ([] when there is none)."""
        if not is_object_uri(uri):
            return local_files.files_under(str(uri))
        bucket, key = split_uri(uri.rstrip("/") + "/")
        return self.list_prefix(bucket, key)

    # Files kept beside the runs (mix's encoded cache): hard links where both sides are local, so a
    # cache the size of a pass over the corpus costs no second copy of it.

    def get_linked(self, source: str, local: str) -> None:
        """A local file at `local` with the bytes of `source` (a file or an object): a hard link of
        a local file, else a download."""
        if not is_object_uri(source):
            return local_files.link(str(source), local)
        os.makedirs(os.path.dirname(local) or ".", exist_ok=True)
        self.get_file(source, local)

    def put_linked(self, local: str, target: str) -> None:
        """The local file `local` at `target` (a path or an object): a hard link, else an upload."""
        if not is_object_uri(target):
            return local_files.link(local, str(target))
        self.put_file(local, target)

    # What a published snapshot needs (pipeline/snapshots.py): files placed in it, and a pointer.

    def place(self, source: str, target: str) -> str:
        """Where `source` is to be read from as part of `target`'s folder: locally a hard link made
        there (the folder survives the deletion of the source's); an object is named where it is,
        nothing copied (a run's objects are never rewritten)."""
        if is_object_uri(source):
            return str(source)
        local_files.link(str(source), str(target))
        return str(target)

    def write_pointer(self, uri: str, target: str) -> None:
        """Point `uri` at `target` (a path relative to its folder), atomically: locally a symlink
        renamed into place (so a shell or a reader can browse through it); on a store one PUT of
        `{"target": ...}`."""
        if not is_object_uri(uri):
            return local_files.write_symlink(str(uri), target)
        self.put_bytes(uri, json.dumps({"target": target}).encode())

    def read_pointer(self, uri: str) -> str | None:
        """The target `uri` points at, or None when there is no pointer."""
        if not is_object_uri(uri):
            return local_files.read_symlink(str(uri))
        try:
            data = json.loads(self.read_bytes(uri))
        except FileNotFoundError:
            return None
        return data.get("target") or data.get("snapshot")  # "snapshot": the key of an earlier version

    def entries_under(self, uri: str) -> list[str]:
        """list_under, and locally also every empty folder (`path/`): a folder a user made is theirs."""
        return local_files.entries_under(str(uri)) if not is_object_uri(uri) else self.list_under(str(uri))

    def kind(self, path: str) -> str:
        """What is at `path`: "missing", "file", "folder" (a directory, or a prefix holding objects)
        or "other" (a device, a socket, a pipe: never ours to replace)."""
        if not is_object_uri(path):
            return local_files.kind(str(path))
        try:
            self.info(str(path))
            return "file"
        except FileNotFoundError:
            bucket, key = split_uri(str(path).rstrip("/") + "/")
            selector = fs.FileSelector(f"{bucket}/{key}".rstrip("/"), recursive=False, allow_not_found=True)
            found = self._ask(bucket, lambda: self.s3().get_file_info(selector))
            return "folder" if found else "missing"

    def _check_bucket(self, bucket: str) -> None:
        if self._ask(bucket, lambda: self.s3().get_file_info(bucket)).type == fs.FileType.NotFound:
            raise missing_bucket(bucket)

    def _unless_gone(self, bucket: str, delete) -> None:
        """A delete of what is already gone is not an error (a cleanup may run twice)."""
        try:
            self._ask(bucket, delete)
        except FileNotFoundError:
            pass

    def _ask(self, bucket: str, request):
        try:
            return request()
        except FileNotFoundError:
            raise
        except OSError as error:
            raise access_error(bucket, error) from None
