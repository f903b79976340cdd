"""One filesystem layer for every path the pipeline reads and writes: local paths through plain
file calls (`open`, `os.stat`, `os.replace`), and `s3://bucket/key` objects through
`pyarrow.fs.S3FileSystem`. The scheme is asked here only: code above asks what a location can do
(`locations.renames`: the stage store's placement, where checkpoints may go; `locations.local_path`:
read in place, or copy first), never which scheme it has.

Why pyarrow.fs and not fsspec + s3fs: it is installed already (the project writes all its Parquet
with it), it reads objects in C++ with the AWS SDK's own credential chain (env, profiles, instance
roles) and endpoint and region handling, and Parquet reads and writes go through the same object
without a second HTTP stack; s3fs would add aiobotocore and its event loop to every executor.
schemas/storage.md is the contract (URIs, file identity, retries, errors).
"""

from corpus_pipeline.storage.errors import StorageAccessError
from corpus_pipeline.storage.storage import Storage, is_object_uri

__all__ = ["Storage", "StorageAccessError", "is_object_uri"]
