"""Every benchmark, once: its name, the command that runs it from the project root, what it measures
and how long it took here. `run_all.py` prints this table and runs any entry by name
(`run_all.py NAME [options]`, `make bench BENCH=name`); with no name, the `standard` entries (`make
bench`). An entry's module declares its options and results through harness.py; a new benchmark gets
its row here, and tests/benchmarks/test_catalog.py fails on a bench_*.py script without one.

Durations are the runs recorded in README.md, on the project's 2-core machine.
"""

from __future__ import annotations

import shlex
import textwrap
from dataclasses import dataclass

# The interpreter the commands are shown with: the project's venv, as the Makefile runs them.
VENV_PYTHON = ".venv/bin/python"
RUNNER = "benchmarks/run_all.py"
# The list's lines wrap here: a terminal's 100 columns with room to spare.
LIST_WIDTH = 100


@dataclass(frozen=True)
class Benchmark:
    name: str
    # benchmarks/<module>.py, whose SPEC (or STAGE, for a stage benchmark) the runner runs; None for a
    # shell script outside the harness (`script`)
    module: str | None
    measures: str
    duration: str
    # the arguments its listed command adds to the runner's
    args: tuple[str, ...] = ()
    # a stage benchmark: several run in one process, with one Context (stage_runs.py)
    stage: bool = False
    # run by a plain `make bench`
    standard: bool = False
    # argv of a script run as it is, from the project root (its arguments follow the name)
    script: tuple[str, ...] = ()

    @property
    def command(self) -> str:
        if self.script:
            return shlex.join(self.script)
        return shlex.join((VENV_PYTHON, RUNNER, self.name, *self.args))


def _stage(name: str, measures: str, duration: str, standard: bool = False) -> Benchmark:
    return Benchmark(name, f"bench_{name}", measures, duration, stage=True, standard=standard)


# pii, quality and tokenize have no full run on record; their smoke runs together took this.
QUICK_THREE = "full run not recorded (--quick --no-peer with the other two: 49 s in all)"

BENCHMARKS: tuple[Benchmark, ...] = (
    _stage(
        "extract",
        "extract on the 1,432 real pages: raw trafilatura, the stage in one process and on Spark local[2], "
        "datatrove WarcReader + Trafilatura",
        "~20 min with langid, 2 reps",
        standard=True,
    ),
    Benchmark(
        "extract-engines",
        "extract_engines_compare",
        "extract.engine trafilatura, resiliparse and hybrid on the 1,432 gold pages: CPU seconds of the calls, "
        "F1 (P / R) overall, on each half of the split the hybrid was fitted on, per source and on the Chinese pages",
        "~2 min at load 2-3",
    ),
    _stage(
        "langid",
        "langid on 21,420 extracted documents: raw fastText, the stage, Spark local[2], datatrove "
        "LanguageFilter; sentence accuracy",
        "~20 min with extract, 2 reps",
        standard=True,
    ),
    _stage(
        "pii",
        "PII detector alone, the stage, Spark local[2], datatrove PIIFormatter, on ~20,000 web documents",
        QUICK_THREE,
    ),
    _stage(
        "quality",
        "Gopher, C4 and FineWeb signals alone, the quality stage, Spark local[2], datatrove's four quality blocks",
        QUICK_THREE,
    ),
    _stage(
        "tokenize",
        "the tokenize stage on Spark local[2] and in one process against raw encode_batch; the shard reader",
        QUICK_THREE,
    ),
    Benchmark(
        "tokenize-pretok",
        "bench_tokenize_pretok",
        "tokens per character of English and Chinese with and without the CJK pre-tokenizer rule",
        "not recorded (--quick: a quarter of the text, 8k vocabulary)",
    ),
    Benchmark(
        "ingest",
        "bench_ingest",
        "ingest on ~40 MB of real text as JSON lines and as Parquet, metadata kept: its reader against "
        "pyarrow.json.read_json and pyarrow.parquet.read_table, the stage against those plus the stage's own "
        "Parquet write; export against read + write_table",
        "~1 min, 3 reps",
    ),
    Benchmark(
        "train",
        "bench_train",
        "shard reader tokens/s on CPU; with CUDA, a gpt-124m step's tokens/s and MFU (--gpu-only: that alone)",
        "reader: 48 M tokens/s measured",
    ),
    Benchmark(
        "crawl",
        "bench_crawl",
        "run_crawl against scrapy alone on the demo site (475 pages), wall and CPU seconds",
        "~3 min with 3 reps",
    ),
    Benchmark(
        "dedup",
        "bench_dedup",
        "the dedup stage on Spark local[2] against datatrove's four MinHash steps on 20,000 documents; "
        "recall and precision on planted copies",
        "13 min idle, 10.4 of them datatrove's (--quick: 300 documents, ~70 s)",
    ),
    Benchmark(
        "dedup-jobs",
        "bench_dedup_jobs",
        "dedup's fixed cost on local[1]: Spark jobs and seconds per run on the real pages, output hashes",
        "1 + 3 runs, ~1 min idle",
    ),
    Benchmark(
        "dedup-scale",
        "bench_dedup_scale",
        "dedup time and peak memory at 10k, 100k and 1M documents",
        "37 min",
        args=("--work", "/tmp/dedup-scale"),
    ),
    Benchmark(
        "scale",
        "bench_scale",
        "ingest -> tokenize, each stage a --runner local process, on 10k and 100k generated documents (30 % planted "
        "near-duplicates; --million adds 1M): CPU µs/doc of each process tree, peak RSS, growth exponent, dedup recall",
        "17 min for 10k and 100k at load 3-5, inputs and tokenizer included",
        args=("--work", "/tmp/bench-scale"),
    ),
    Benchmark(
        "cluster",
        "bench_cluster",
        "`run` of 10k generated documents on a loopback standalone cluster (two workers of one core), the run "
        "on s3:// of a loopback S3 server, against --runner local on local disk: outputs compared file by file, "
        "wall, CPU of every process, documents/s per core",
        "4 min for 10k at load 5-7, the input included",
        args=("--work", "/tmp/bench-cluster"),
    ),
    Benchmark(
        "mix",
        "bench_mix",
        "mix against tokenize on the same generated documents, Spark local[2] with 4g: time, peak memory per "
        "process, growth with the size (--sizes 100000,1000000 for the 1M run)",
        "61 min for 100k and 300k at load 2-7, generating the inputs and the tokenizer included",
        args=("--work", "/tmp/mix-bench", "--sizes", "100000,300000"),
    ),
    Benchmark(
        "decontam",
        "bench_decontam",
        "decontaminate on the real pages x14 (20,048 documents) against HumanEval + 10,000 items: docs/s in one "
        "process, LocalExecutor and Spark local[2] against quality's; index memory per process for 10k and 100k "
        "items; datatrove NGramsDecontFilter",
        "~9 min at load 3-5 (--memory-only: ~2 min)",
    ),
    Benchmark(
        "end-to-end",
        "bench_end_to_end",
        "WARC to token shards, local and Spark local[2]: MB/s and CPU seconds against the raw library costs",
        "14 min at load 7-9 (--quick: 200 pages, ~2.5 min idle)",
    ),
    Benchmark(
        "e2e-peer",
        None,
        "corpus-pipeline run --runner local beside datatrove's FineWeb-style recipe on the 1,432 pages, "
        "CPU seconds of each process tree, reps alternating (arg: REPS, default 2)",
        "57-60 s wall per run, 4 runs; the first call also builds its peer venv in /tmp/peer",
        script=("bash", "../shared/peer_bench/e2e_compare.sh"),
    ),
    Benchmark(
        "cores-e2e",
        None,
        "corpus-pipeline run on the 1,432 pages (one WARC, read in byte spans) under --runner local and on Spark "
        "local[2], reps alternating: wall and tree CPU seconds, load, shard hashes (args: REPS, then --set ...)",
        "31-62 s wall per run, 4 runs: ~2.5 min quiet (load 1-2), ~3.5 min at load 2-3",
        script=("bash", "benchmarks/bench_cores_e2e.sh"),
    ),
    Benchmark(
        "s3",
        "bench_s3",
        "the storage layer reading and writing 100 MB on a loopback S3 server (moto) against pyarrow's own "
        "streams and a local file; extract (1,432 pages) and tokenize, s3:// -> s3:// against local -> local",
        "~13 min at load 3-5, 2 reps (--records 200 --mb 20 --reps 1: ~50 s)",
    ),
    Benchmark(
        "quality-drops",
        "quality_drop_report",
        "not a timing: which quality rule drops how many of the real pages, with examples",
        "not recorded",
    ),
    Benchmark(
        "spam",
        "bench_spam",
        "not a timing: spam kept and ordinary documents dropped per kind on the spam development set "
        "(--part heldout: the other half; PYTHONPATH at another checkout: its figures on the same set)",
        "~3 s per part",
    ),
    Benchmark(
        "real-spam",
        "real_spam_set",
        "not a timing: spam kept and ordinary pages dropped, per language, on the real labelled spam set "
        "(Common Crawl, ClueWeb09 and the benchmark pages), with and without the spam rules (--part dev|heldout|all)",
        "not recorded",
    ),
    Benchmark(
        "wiki-residue",
        "wiki_residue",
        "not a timing: Wikipedia articles with wikitext residue before and after ingest per language (gensim's "
        "English dump; others given as LANG=PATH), characters kept, pages rejected, quality drops",
        "~12 min for English and six truncated dumps at load 8 (--no-quality: ~6 min)",
    ),
    Benchmark(
        "spam-domains",
        "bench_spam_domains",
        "not a timing: gensim's Wikipedia articles dropped as web pages and as encyclopedia; the real "
        "pages' quality fates against a saved run (--save-web / --compare-web)",
        "~25 s",
    ),
    Benchmark(
        "embed",
        "bench_embed",
        "the embed stage under the local runner against the raw model's batched encode on the same pages, "
        "256 tokens, 1 and 2 threads: docs/s, CPU seconds, stage/raw (--model multilingual-e5-small)",
        "~4 min busy (64 pages, 2 reps)",
    ),
    Benchmark(
        "semantic-dedup",
        "bench_semantic_dedup",
        "not a timing: semantic dedup at several cosine thresholds against MinHash on planted paraphrases "
        "(reordered, dropped, synonym-swapped sentences) of 200 real pages: precision, recall per kind",
        "~1 min MiniLM, ~3 min multilingual-e5-small (the embedding)",
    ),
    Benchmark(
        "quality-ablation",
        "bench_quality_ablation",
        "not a timing: the tiny model trained on the pages of the embedding head's top tier against a random "
        "subset of the same tokens (same steps, same seed), held-out loss on ABC news: both curves and seeds",
        "212 CPU s, 7 min at load 8 (125 of them scoring the pages, which --scores FILE saves for the next run)",
    ),
)


def by_name(name: str) -> Benchmark:
    for benchmark in BENCHMARKS:
        if benchmark.name == name:
            return benchmark
    raise KeyError(f"no benchmark {name!r}: choose from {', '.join(b.name for b in BENCHMARKS)}")


def listing() -> str:
    """The table `make bench` prints first: name, command, what it measures, how long."""
    lines = ["benchmarks (make bench BENCH=name ARGS='...' runs one; * = in a plain make bench):"]
    indent = " " * 19
    for benchmark in BENCHMARKS:
        mark = "*" if benchmark.standard else " "
        lines.append(f" {mark} {benchmark.name:<16}{benchmark.command}")
        about = f"{benchmark.measures}; {benchmark.duration}"
        lines.extend(textwrap.wrap(about, LIST_WIDTH, initial_indent=indent, subsequent_indent=indent))
    return "\n".join(lines)
