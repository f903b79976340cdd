"""Validators (ETag, Last-Modified, fetch date) of a previous crawl, for conditional recrawls."""

from __future__ import annotations

from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from corpus_pipeline.urls import canonical_url


def load_validators(previous_crawl: Path) -> dict[str, dict]:
    """canonical URL -> {"etag", "last_modified", "date"} from the crawl's response and revisit
    records; a later record of the same URL replaces an earlier one."""
    validators: dict[str, dict] = {}
    for path in sorted(Path(previous_crawl).rglob("*.warc.gz")):
        with open(path, "rb") as stream:
            for record in ArchiveIterator(stream):
                if record.rec_type not in ("response", "revisit") or record.http_headers is None:
                    continue
                http = record.http_headers
                etag, modified = http.get_header("ETag"), http.get_header("Last-Modified")
                if etag or modified:
                    url = canonical_url(record.rec_headers.get_header("WARC-Target-URI"))
                    date = record.rec_headers.get_header("WARC-Date")
                    validators[url] = {"etag": etag, "last_modified": modified, "date": date}
    return validators
