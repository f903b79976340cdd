"""A generator run ahead of its caller in a thread, a bounded number of items ahead: the next Parquet
batch is decoded on the second core while the caller checks the one it holds. Parquet decoding
releases the GIL (two threads decoding the 22 MB benchmark file's batches against one doing it
twice: 1.55x; a Python loop, 0.95x), so the two threads run side by side. JSON lines does not use
it: reading, counting and checking the next chunk there gained 4-16 ms of ~100 with a free core
and cost 4-8 % CPU with none (benchmarks/README.md, Ingest).

An item stays the caller's until it asks for the next one: the generator may reuse an item's
buffer only `depth + 1` items later. An error in the generator is raised in the caller, the same
exception, after the items made before it. Leaving the `with` block (the end, an error, a caller
that stops early: `ingest.limit`) stops the thread and waits for it, so the stream the generator
reads can be closed after it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")
_ITEM, _ERROR, _END = range(3)


class Ahead(Generic[T]):
    def __init__(self, items: Iterator[T], depth: int = 1, name: str = "ingest-ahead"):
        self._items = items
        # One slot an item made and not yet handed back: the caller's and up to `depth` ahead.
        self._slots = threading.Semaphore(depth + 1)
        self._made: queue.SimpleQueue = queue.SimpleQueue()
        self._stop = threading.Event()
        self._held = self._done = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while True:
                self._slots.acquire()
                if self._stop.is_set():
                    return
                try:
                    item = next(self._items)
                except StopIteration:
                    self._made.put((_END, None))
                    return
                self._made.put((_ITEM, item))
        except BaseException as error:  # raised in the caller, which decides what it means
            self._made.put((_ERROR, error))
        finally:
            close = getattr(self._items, "close", None)
            if close is not None:
                close()

    def __iter__(self) -> Ahead[T]:
        return self

    def __next__(self) -> T:
        if self._held:  # the caller is done with the item it held: its slot may be reused
            self._held = False
            self._slots.release()
        if self._done:
            raise StopIteration
        kind, value = self._made.get()
        if kind == _ITEM:
            self._held = True
            return value
        self._done = True
        if kind == _ERROR:
            raise value
        raise StopIteration

    def close(self) -> None:
        self._stop.set()
        self._slots.release()  # wakes the thread if it waits for a slot; it sees the stop
        self._thread.join()
        self._done = True

    def __enter__(self) -> Ahead[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
