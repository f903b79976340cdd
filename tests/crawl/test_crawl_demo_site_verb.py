"""`demo-site` serves on 127.0.0.1, writes its seeds file once serving, and stops on Ctrl-C."""

import signal
import subprocess
import sys
import time
import urllib.request

SCRIPT = """
import argparse, sys
from corpus_pipeline.config import load_config
from corpus_pipeline.crawl.cli import register
parser = argparse.ArgumentParser()
register(parser.add_subparsers(dest="verb", required=True))
args = parser.parse_args(sys.argv[1:])
sys.exit(args.handler(args, load_config(args.config, args.overrides)))
"""


def _interruptible() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_demo_site_verb_serves_until_interrupted(tmp_path):
    seeds = tmp_path / "seeds.txt"
    command = [
        sys.executable,
        "-c",
        SCRIPT,
        "demo-site",
        "--port",
        "0",
        "--max-articles",
        "1",
        "--seeds-file",
        str(seeds),
    ]
    # As from a terminal: a shell running `make test` in the background (`make test &`, nohup) starts
    # it with SIGINT ignored, which the child would inherit and never see Ctrl-C.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, preexec_fn=_interruptible)
    try:
        deadline = time.monotonic() + 60
        while not seeds.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        home, sitemap = seeds.read_text().split()
        assert home.startswith("http://127.0.0.1:") and sitemap == home + "sitemap.xml"
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via an env proxy
        with direct.open(home + "robots.txt", timeout=5) as response:
            assert b"Disallow: /private/" in response.read()
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
    assert "demo site: http://127.0.0.1:" in process.stdout.read()
