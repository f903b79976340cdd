"""A misbehaving server on 127.0.0.1 (raw sockets): every fault is a counted error, never a stall."""

import gzip
import socket
import struct
import threading
import time

import pytest
from crawl_helpers import loopback_config, response_paths, run_crawl

FAULTS = ("/hang", "/reset", "/short", "/endless", "/bad-encoding", "/bomb", "/to-internal", "/to-file")
# 127.0.0.2 is loopback but not allowlisted (only 127.0.0.1 is): a redirect there must be refused,
# and were the rule broken the connection would still stay on loopback.
INTERNAL = {"internal.test": "127.0.0.2"}
BOMB = gzip.compress(b"\0" * 20_000_000)  # 20 MB of zeros in about 20 KB


def _respond(conn: socket.socket, path: str, stop: threading.Event, port: int) -> None:
    def send(status: str, body: bytes, *headers: str) -> None:
        head = [f"HTTP/1.1 {status}", "Content-Type: text/html; charset=utf-8", *headers]
        if not any(h.startswith("Content-Length") for h in headers):
            head.append(f"Content-Length: {len(body)}")
        conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)

    if path == "/":
        links = "".join(f'<a href="{p}">{p}</a>' for p in FAULTS)
        send("200 OK", f"<html><body>{links}</body></html>".encode())
    elif path == "/robots.txt":
        send("404 Not Found", b"")
    elif path == "/hang":
        stop.wait(10)
    elif path == "/reset":
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST
    elif path == "/short":
        send("200 OK", b"<html>only this", "Content-Length: 5000")
    elif path == "/endless":
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n<html><body>")
        chunk = b"<p>" + b"z" * 4000 + b"</p>"
        while not stop.is_set():
            try:
                conn.sendall(chunk)
            except OSError:
                return
    elif path == "/bad-encoding":
        send("200 OK", b"<html><body><p>caf\xe9 \xff\xfe\xc3\x28 <a href='/\xff'>x</a></p></body></html>")
    elif path == "/bomb":
        send("200 OK", BOMB, "Content-Encoding: gzip")
    elif path == "/to-internal":
        send("302 Found", b"", f"Location: http://internal.test:{port}/secret")
    elif path == "/to-file":
        send("302 Found", b"", "Location: file:///etc/passwd")
    else:
        send("404 Not Found", b"")


class FaultyServer:
    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        self.sock.settimeout(0.1)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                request = conn.recv(65536).decode("latin-1")
                path = request.split(" ")[1] if " " in request else "/"
                _respond(conn, path, self.stop, self.sock.getsockname()[1])
            except OSError:
                return

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.sock.close()


@pytest.fixture(scope="module")
def faulty_crawl(tmp_path_factory):
    out = tmp_path_factory.mktemp("faults")
    with FaultyServer() as server:
        (out / "seeds.txt").write_text(server.base_url + "/\n")
        config = loopback_config(timeout_s=1.0, retries=1, max_body_bytes=50_000, static_hosts=INTERNAL)
        started = time.monotonic()
        result = run_crawl(out / "seeds.txt", out / "crawl", config)
        return result, time.monotonic() - started, server.base_url


def test_faulty_server_never_stalls_the_crawl(faulty_crawl):
    result, seconds, _ = faulty_crawl
    assert seconds < 30
    assert result.stats.docs_in == 2 + len(FAULTS)  # and /%FF, linked from /bad-encoding


def test_each_fault_is_a_counted_error(faulty_crawl):
    result, _, base_url = faulty_crawl
    dropped = result.stats.dropped
    assert dropped["timeout"] == 1  # /hang
    assert dropped["connection_lost"] == 1  # /reset
    assert dropped["data_loss"] == 1  # /short
    assert dropped["decompression_too_large"] == 1  # /bomb
    assert dropped["http_4xx"] == 1  # /%FF
    assert dropped["refused_by_safety"] == 1  # the redirect to internal.test, checked on its resolved IP
    assert dropped["unsupported_scheme"] == 1  # the redirect to file:
    kept = response_paths(result.output, base_url)
    assert kept == {"/", "/endless", "/bad-encoding"}
    assert result.stats.extra["crawl"]["truncated"] == 1  # /endless, cut at max_body_bytes
