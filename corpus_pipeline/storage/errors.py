"""What the store answers, turned into errors that name the bucket and never the secret."""

from __future__ import annotations

import os

# The AWS variables whose values must never reach a message, a log line or the run record.
_SECRET_VARIABLES = ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID", "AWS_SECURITY_TOKEN")
# The AWS SDK's error names (pyarrow: "AWS Error ACCESS_DENIED during ...") for credentials refused.
_DENIED = ("ACCESS_DENIED", "INVALID_ACCESS_KEY_ID", "SIGNATURE_DOES_NOT_MATCH", "EXPIRED_TOKEN", "HTTP status 403")


class StorageAccessError(ValueError):
    """The store refused the run before any task: a missing bucket, credentials it does not accept,
    an endpoint that does not answer. The CLI exits 2, as for any input that is not there."""


class InputRefusedError(FileNotFoundError):
    """An input path that cannot be read as given (a FIFO, socket or device, a loop of links, a
    dangling link, a name that is not UTF-8): refused before any task, naming it (exit 2)."""


class OutputRefusedError(ValueError):
    """A path that writing would damage (a user's file or folder, a device, a name that only looks
    like one of ours): refused before anything is written or opened there (exit 2)."""


class ObjectReadError(OSError):
    """An object could not be read to the end, after every retry: its task records a read fault."""


def redact(message: str) -> str:
    """`message` with the value of every AWS credential variable set in this process blanked out."""
    for name in _SECRET_VARIABLES:
        value = os.environ.get(name)
        if value and len(value) >= 4:  # a 1-3 character value would blank ordinary words
            message = message.replace(value, "***")
    return message


def access_error(bucket: str, error: OSError) -> StorageAccessError:
    reason = redact(str(error))
    if "NO_SUCH_BUCKET" in reason:
        return missing_bucket(bucket)
    if any(marker in reason for marker in _DENIED):
        return StorageAccessError(
            f"s3://{bucket}: access denied: the store refused the credentials (AWS_ACCESS_KEY_ID and "
            f"AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or storage.anonymous=true for a public bucket): "
            f"{_first_clause(reason)}"
        )
    return StorageAccessError(f"s3://{bucket}: {_first_clause(reason)}")


def missing_bucket(bucket: str) -> StorageAccessError:
    return StorageAccessError(f"s3://{bucket}: no such bucket (check its name, the endpoint and the region)")


def _first_clause(reason: str) -> str:
    # pyarrow ends its messages with the request id, which says nothing to a person.
    return reason.split(" (Request ID")[0].strip()
