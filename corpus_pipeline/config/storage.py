"""Config of object storage (`s3://` inputs): how to reach the store and how hard to retry a read.

Credentials are never config: they come the standard AWS way (AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_PROFILE and ~/.aws), as boto3 and pyarrow read them, so
no secret is ever written into a config file, a fingerprint or the run record.
"""

from __future__ import annotations

from pydantic import Field

from corpus_pipeline.config_base import Strict


class StorageConfig(Strict):
    # Unsigned requests, for public buckets such as s3://commoncrawl (no credentials needed or sent).
    anonymous: bool = False
    # None: AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1 (where Common Crawl lives).
    region: str | None = None
    # An S3-compatible store (MinIO, Ceph, a loopback test server). None: AWS_ENDPOINT_URL_S3, else
    # AWS_ENDPOINT_URL, else AWS itself.
    endpoint_url: str | None = None
    # Where the keys of a Common Crawl paths listing (warc.paths.gz: `crawl-data/CC-MAIN-.../x.warc.gz`
    # a line) live.
    paths_base_url: str = "s3://commoncrawl/"
    # A read that fails mid-object is retried from the byte it stopped at, after 0.5, 1, 2, 4 s
    # (7.5 s in all), then the file becomes a read fault (a `read_error` row), as a truncated local file does.
    read_retries: int = Field(default=4, ge=0)
    retry_backoff_seconds: float = Field(default=0.5, ge=0)
    # One ranged GET per block: 8 MiB keeps a WARC of 1 GB to 128 requests, and is what one task holds.
    read_block_bytes: int = Field(default=8 << 20, ge=64 << 10)
    # Where a stage with an s3:// output stages what it uploads when it completes: the driver's own
    # files, and for crawl and mix, whose tasks read and write a directory while they run, the whole
    # stage. None: the system temp directory, right on one machine; on a cluster crawl and mix need
    # one every executor sees (a shared volume). One folder per stage fingerprint, so a run killed
    # on the same machine resumes from it.
    scratch_dir: str | None = None
