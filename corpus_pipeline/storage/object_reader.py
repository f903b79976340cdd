"""An object read as a seekable binary file, block by block, retrying a failed block.

Each block is one ranged GET (`RandomAccessFile.read_at`), so a read that fails mid-object (a reset
connection, a 503 from a busy store) is retried from the byte it stopped at, with exponential
backoff, instead of starting the object again. After the last retry the error is an
ObjectReadError naming the object and the byte, which the readers turn into a read fault (the
records before it are kept, as for a truncated local file).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable

from corpus_pipeline.config.storage import StorageConfig
from corpus_pipeline.storage.errors import ObjectReadError, redact


class RetryingObjectReader(io.RawIOBase):
    def __init__(self, uri: str, open_file: Callable[[], object], config: StorageConfig):
        self.uri = uri
        self._open_file = open_file  # -> a pyarrow RandomAccessFile; called again after a failure
        self._config = config
        self._file = self._retrying(open_file, "open")
        self._size = self._file.size()
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer) -> int:
        wanted = min(len(buffer), self._size - self._position)
        if wanted <= 0:
            return 0
        data = self._retrying(lambda: self._read_at(wanted), f"read at byte {self._position} of {self._size}")
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)

    def _read_at(self, size: int) -> bytes:
        if self._file is None:  # the previous attempt failed: a fresh connection
            self._file = self._open_file()
        try:
            data = self._file.read_at(size, self._position)
        except OSError:
            self._file = None
            raise
        if not data:  # the object shrank under us: not a transient fault, but retried all the same
            raise OSError(f"{size} bytes expected, 0 read")
        return data

    def _retrying(self, action: Callable, what: str):
        retries = self._config.read_retries
        attempt = 0
        while True:
            try:
                return action()
            except FileNotFoundError:  # deleted since it was listed: no retry brings it back
                raise
            except OSError as error:
                if attempt == retries:
                    raise ObjectReadError(
                        f"{self.uri}: {what} failed after {retries + 1} attempts: {redact(str(error))}"
                    ) from None
            time.sleep(self._config.retry_backoff_seconds * 2**attempt)
            attempt += 1

    def close(self) -> None:
        if not self.closed and self._file is not None:
            self._file.close()
        super().close()
