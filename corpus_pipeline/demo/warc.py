"""Writes the demo site as a gzipped WARC/1.1, byte-identical for identical arguments.

warcio stamps records with the current time and random uuid4 record ids; both are supplied
here instead (a fixed crawl date, uuid5 ids), so reruns of `make demo` produce the same file
and downstream document ids and dedup results can be compared across runs.
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from io import BytesIO
from pathlib import Path
from urllib.parse import urlsplit

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from corpus_pipeline.demo.site import DemoPage, DemoSite, build_demo_site
from corpus_pipeline.storage import local_files

DEFAULT_CRAWL_DATE = datetime(2026, 1, 15, 8, 0, 0, tzinfo=timezone.utc)
USER_AGENT = "corpus-pipeline-demo/0.1"
_RECORD_ID_NAMESPACE = uuid.UUID("6f1c3b7e-2d4a-5e8f-9a0b-1c2d3e4f5a6b")


def _record_id(site: DemoSite, record_type: str, url: str) -> str:
    return f"<urn:uuid:{uuid.uuid5(_RECORD_ID_NAMESPACE, f'{record_type} {url} {site.seed}')}>"


def _warc_date(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _write_page(writer: WARCWriter, site: DemoSite, page: DemoPage, fetched: datetime) -> None:
    body = page.body_bytes()
    response_id = _record_id(site, "response", page.url)
    response_headers = StatusAndHeaders(
        "200 OK",
        [
            ("Date", format_datetime(fetched, usegmt=True)),
            *page.http_headers(),
            ("Content-Length", str(len(body))),
        ],
        protocol="HTTP/1.1",
    )
    response = writer.create_warc_record(
        page.url,
        "response",
        payload=BytesIO(body),
        length=len(body),
        http_headers=response_headers,
        warc_headers_dict={
            "WARC-Record-ID": response_id,
            "WARC-Date": _warc_date(fetched),
        },
    )
    request_headers = StatusAndHeaders(
        f"GET {page.path} HTTP/1.1",
        [("Host", urlsplit(page.url).netloc), ("User-Agent", USER_AGENT), ("Accept", "text/html")],
        is_http_request=True,
    )
    request = writer.create_warc_record(
        page.url,
        "request",
        http_headers=request_headers,
        warc_headers_dict={
            "WARC-Record-ID": _record_id(site, "request", page.url),
            "WARC-Date": _warc_date(fetched),
            "WARC-Concurrent-To": response_id,
        },
    )
    # Request before response, as crawlers write them (warcio's write_request_response_pair
    # would put the response first).
    writer.write_record(request)
    writer.write_record(response)


def write_demo_warc(site: DemoSite, path: str | os.PathLike, date: datetime = DEFAULT_CRAWL_DATE) -> int:
    """Write a warcinfo record, then a request and a response per page; return the record count.

    Pages are "fetched" one second apart from `date`. The file appears atomically: it is written
    next to `path` and renamed, so an interrupted run never leaves a truncated WARC behind.
    """
    path = Path(path)
    info = (
        f"software: corpus_pipeline.demo\r\nformat: WARC File Format 1.1\r\n"
        f"description: demo site {site.base_url} built with seed {site.seed}\r\n"
        f"robots: classic\r\nhttp-header-user-agent: {USER_AGENT}\r\n"
    ).encode()
    with local_files.replaced_whole(path) as tmp, tmp.open("wb") as out:
        writer = WARCWriter(out, gzip=True, warc_version="1.1")
        writer.write_record(
            writer.create_warc_record(
                "",
                "warcinfo",
                payload=BytesIO(info),
                length=len(info),
                warc_headers_dict={
                    "WARC-Record-ID": _record_id(site, "warcinfo", path.name),
                    "WARC-Date": _warc_date(date),
                    "WARC-Filename": path.name,
                },
            )
        )
        for number, page in enumerate(site.pages):
            _write_page(writer, site, page, date + timedelta(seconds=number))
    return 1 + 2 * len(site.pages)


def build_demo_warc(output_path: str | os.PathLike, seed: int = 0, max_articles_per_source: int | None = None) -> dict:
    """Build the demo site and write it as a WARC; return a summary for `make demo` to print."""
    site = build_demo_site(seed=seed, max_articles_per_source=max_articles_per_source)
    records = write_demo_warc(site, output_path)
    return {
        "path": str(output_path),
        "pages": len(site.pages),
        "records": records,
        "bytes": os.path.getsize(output_path),
        "pages_by_kind": dict(sorted(Counter(page.kind for page in site.pages).items())),
        "pages_by_language": dict(sorted(Counter(page.language for page in site.pages).items())),
    }
