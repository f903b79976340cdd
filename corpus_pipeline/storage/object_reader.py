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
        self._file = open_file()
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
        data = self._read_block(wanted)
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)

    def _read_block(self, size: int) -> bytes:
        retries = self._config.read_retries
        attempt = 0
        while True:
            try:
                data = self._file.read_at(size, self._position)
                if not data:  # the object shrank under us: not a transient fault
                    raise OSError(f"{size} bytes expected, 0 read")
                return data
            except OSError as error:
                if attempt == retries:
                    raise ObjectReadError(
                        f"{self.uri}: read failed at byte {self._position} of {self._size} after "
                        f"{retries + 1} attempts: {redact(str(error))}"
                    ) from None
            time.sleep(self._config.retry_backoff_seconds * 2**attempt)
            attempt += 1
            self._reopen()

    def _reopen(self) -> None:
        try:
            self._file = self._open_file()
        except OSError:  # the store is still down: the next read_at on the old file says so again
            pass

    def close(self) -> None:
        if not self.closed:
            self._file.close()
        super().close()
