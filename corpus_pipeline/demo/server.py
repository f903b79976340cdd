"""The demo site over HTTP on 127.0.0.1, for `corpus-pipeline demo-site`, the crawl tests and bench.

Besides the DemoSite pages, robots.txt and sitemap.xml it serves what a crawler must cope with:
a redirect (/old-home -> /), a redirect loop (/loop/a <-> /loop/b), a chain of 8 redirects, 404s, a slow page, an
oversize page, a page that fails with 503 before it succeeds, and a PDF at an extension-less URL;
the home page links to all of them. Every page has an ETag and Last-Modified and answers conditional requests with 304.
Each request is logged (start, end, path, headers) so tests can measure gaps and concurrency.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from corpus_pipeline.demo.site import DemoSite, build_demo_site

LAST_MODIFIED = "Thu, 15 Jan 2026 08:00:00 GMT"
REDIRECT_CHAIN = 8  # /chain/0 -> /chain/1 -> ... -> /chain/8: more hops than a crawler should follow
EXTRA_LINKS = ("/old-home", "/loop/a", "/chain/0", "/missing.html", "/slow.html", "/big.html", "/flaky.html", "/report")


@dataclass
class LoggedRequest:
    start: float
    end: float
    path: str
    headers: dict[str, str]


class DemoServer:
    """`with DemoServer(...) as server:` serves on server.base_url until the block ends."""

    def __init__(
        self,
        port: int = 0,
        max_articles_per_source: int | None = None,
        slow_seconds: float = 1.0,
        oversize_bytes: int = 11_000_000,
        failures_before_ok: int = 1,
        crawl_delay: float | None = None,
    ):
        self.httpd = _QuietServer(("127.0.0.1", port), _Handler)
        self.httpd.daemon_threads = True
        self.httpd.demo = self
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.site: DemoSite = build_demo_site(max_articles_per_source=max_articles_per_source, base_url=self.base_url)
        self.slow_seconds, self.oversize_bytes = slow_seconds, oversize_bytes
        self.failures_left = failures_before_ok
        self.robots_txt = self.site.robots_txt
        if crawl_delay is not None:
            self.robots_txt = self.robots_txt.replace("User-agent: *\n", f"User-agent: *\nCrawl-delay: {crawl_delay}\n")
        self.log: list[LoggedRequest] = []
        self.active = self.max_active = 0
        self.lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> DemoServer:
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join()

    def page_paths(self) -> set[str]:
        return {page.path for page in self.site.pages}


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # A crawler cutting a body at its size limit (the oversize page) resets the connection
        # mid-write; that is expected, not worth a traceback on stderr.
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def _etag(body: bytes) -> str:
    return '"' + hashlib.sha1(body).hexdigest()[:16] + '"'


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # noqa: A002 - the base class's signature
        return

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        demo: DemoServer = self.server.demo
        started = time.monotonic()
        with demo.lock:
            demo.active += 1
            demo.max_active = max(demo.max_active, demo.active)
        try:
            self._serve(demo)
        finally:
            with demo.lock:
                demo.active -= 1
                demo.log.append(LoggedRequest(started, time.monotonic(), self.path, dict(self.headers)))

    def _send(self, status: int, body: bytes, content_type: str = "text/html; charset=utf-8", **headers) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str, status: int = 301) -> None:
        self._send(status, b"", Location=location)

    def _page(self, body: bytes, content_type: str, extra: tuple = ()) -> None:
        etag = _etag(body)
        if self.headers.get("If-None-Match") == etag or self.headers.get("If-Modified-Since") == LAST_MODIFIED:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", LAST_MODIFIED)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._send(200, body, content_type, ETag=etag, Last_Modified=LAST_MODIFIED, **dict(extra))

    def _serve(self, demo: DemoServer) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/robots.txt":
            self._send(200, demo.robots_txt.encode(), "text/plain")
        elif path == "/sitemap.xml":
            self._send(200, demo.site.sitemap_xml.encode(), "application/xml")
        elif path == "/old-home":
            self._redirect("/")
        elif path in ("/loop/a", "/loop/b"):
            self._redirect("/loop/b" if path == "/loop/a" else "/loop/a", 302)
        elif path.startswith("/chain/") and path[7:].isdigit() and int(path[7:]) < REDIRECT_CHAIN:
            self._redirect(f"/chain/{int(path[7:]) + 1}", 302)
        elif path == f"/chain/{REDIRECT_CHAIN}":
            self._page(b"<html><body><p>The end of the chain.</p></body></html>", "text/html; charset=utf-8")
        elif path == "/slow.html":
            time.sleep(demo.slow_seconds)
            self._page(b"<html><body><p>A slow page.</p></body></html>", "text/html; charset=utf-8")
        elif path == "/big.html":
            filler = b"<p>" + b"x" * 1000 + b"</p>\n"
            body = b"<html><body>" + filler * (demo.oversize_bytes // len(filler) + 1) + b"</body></html>"
            self._page(body, "text/html; charset=utf-8")
        elif path == "/flaky.html":
            with demo.lock:
                fail = demo.failures_left > 0
                demo.failures_left -= fail
            if fail:
                self._send(503, b"busy", "text/plain", Retry_After="0")
            else:
                self._page(b"<html><body><p>Up again.</p></body></html>", "text/html; charset=utf-8")
        elif path == "/report":
            self._page(b"%PDF-1.4\n%demo\n", "application/pdf")
        else:
            self._serve_site_page(demo, path)

    def _serve_site_page(self, demo: DemoServer, path: str) -> None:
        page = demo.site.page(path)
        if page is None:
            self._send(404, b"<html><body>Not found</body></html>")
            return
        body = page.body_bytes()
        if path == "/":
            links = "".join(f'<li><a href="{href}">{href}</a></li>' for href in EXTRA_LINKS)
            body = body.replace(b"</main>", f'<ul class="extras">{links}</ul></main>'.encode(), 1)
        self._page(body, page.content_type, page.extra_headers)
