"""A real S3 API server on 127.0.0.1 for the tests and benchmarks: moto's server mode, in a child
process (`moto[server]`, in the `dev` extra), with request signing checked, so credentials the store
does not know are refused as AWS refuses them. Never bound to any address but loopback.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass

LOOPBACK = "127.0.0.1"
# moto checks signatures only after this many requests: the three that make the test user.
_UNSIGNED_SETUP_REQUESTS = 3
# moto's server imports flask and every AWS service model first: 2-4 s on this machine.
_START_SECONDS = 30


@dataclass
class LoopbackS3:
    endpoint: str
    access_key_id: str
    secret_access_key: str
    process: subprocess.Popen

    def client(self):
        """A boto3 client signed as the test user (to create buckets and put objects)."""
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name="us-east-1",
            aws_access_key_id=self.access_key_id,
            aws_secret_access_key=self.secret_access_key,
        )

    def environment(self) -> dict[str, str]:
        """The AWS variables that point a client at this server as the test user."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": self.access_key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret_access_key,
            "AWS_REGION": "us-east-1",
        }

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_loopback_s3() -> LoopbackS3:
    port = _free_port()
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": str(_UNSIGNED_SETUP_REQUESTS)}
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", LOOPBACK, "-p", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://{LOOPBACK}:{port}"
    try:
        _wait_for(port, process)
        key_id, secret = _test_user(endpoint)
    except BaseException:
        process.kill()
        process.wait()
        raise
    return LoopbackS3(endpoint, key_id, secret, process)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def _wait_for(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + _START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"moto's server exited with {process.returncode} (is moto[server] installed?)")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"moto's server did not listen on {LOOPBACK}:{port} within {_START_SECONDS} s")


def _test_user(endpoint: str) -> tuple[str, str]:
    """An IAM user allowed everything, made with the unsigned requests moto allows first."""
    import boto3

    iam = boto3.client(
        "iam", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup"
    )
    iam.create_user(UserName="corpus-tests")
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
    iam.put_user_policy(UserName="corpus-tests", PolicyName="everything", PolicyDocument=json.dumps(policy))
    key = iam.create_access_key(UserName="corpus-tests")["AccessKey"]
    return key["AccessKeyId"], key["SecretAccessKey"]
