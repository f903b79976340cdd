"""A scrapy download handler that records each request and never opens a connection.

The safety test installs it (through crawl.scrapy_settings, with tests/crawl on PYTHONPATH) so
that a request reaching the download stage is written down instead of sent: the test can then
assert that a refused private address was never even attempted, without any packet leaving.
"""

from __future__ import annotations

from scrapy.core.downloader.handlers.base import BaseDownloadHandler
from scrapy.http import HtmlResponse


class RecordingHandler(BaseDownloadHandler):
    async def download_request(self, request):
        with open(self.crawler.settings.get("CRAWL_TEST_DOWNLOAD_LOG"), "a", encoding="utf-8") as log:
            log.write(request.url + "\n")
        return HtmlResponse(request.url, status=200, body=b"<html><body>recorded</body></html>", request=request)
