"""The one place that says, for every command line of the README's bash blocks and every `make help`
target, which test runs it or why none can here. tests/readme/test_readme.py fails on a README line
or a target with no entry here, on an entry that names nothing the README or `make help` still
has, and on a test named here that does not exist: a new or changed line needs its entry.

RUN_HERE: run as written, in README order then these targets' order, by test_readme.py in a copy
of the project's layout (data/ its own, ../shared/data the real data), with the few placeholders
of SUBSTITUTE filled in. RUN_BY: an existing test runs the same verb the same way on small input.
NOT_HERE: cannot run on a test machine, and why.
"""

from __future__ import annotations

README_TEST = "tests/readme/test_readme.py::test_the_readme_commands_run_as_written"

RUN_HERE = (
    ".venv/bin/corpus-pipeline --help",
    ".venv/bin/corpus-pipeline run --runner local --set run_id=first --set 'pipeline.inputs=[../shared/data/warc/]'",
    ".venv/bin/corpus-pipeline report data/runs/first",
    "make pipeline INPUT=../shared/data/warc/",
    ".venv/bin/corpus-pipeline extract --runner local --input ../shared/data/warc/ --output data/runs/r2/01_extract",
    "make langid RUN_ID=r2 RUNNER=local",
    "make pipeline INPUT=a.warc.gz,crawls/",
    "corpus-pipeline export --input runs/r1/07_decontaminate --output web-corpus/ --format parquet",
    "make help",
    "make bench-list",
    "make gates",
    "make report",
    "make clean",
)

# Placeholders of RUN_HERE lines -> what the test gives (one WARC file and a folder; the run above).
SUBSTITUTE = {
    "INPUT=a.warc.gz,crawls/": "INPUT=../shared/data/warc/cc-main-2024-22-one-page.warc.gz,../shared/data/warc/",
    "--input runs/r1/07_decontaminate": "--input data/runs/first/07_decontaminate",
}

# Every stage target is one Makefile rule (`$(STAGES)`), which `make langid` runs above; each
# stage's verb has its own tests.
_STAGE_RULE = README_TEST
_FIRST_NIGHT = "tests/pipeline/test_nightly_publish.py::test_a_first_night_publishes_and_a_rerun_finds_nothing_new"

RUN_BY = {
    "make demo": "tests/test_demo_run.py::test_demo_crawls_runs_every_stage_and_reruns_as_a_no_op",
    "corpus-pipeline run --config cluster.yaml --output s3://bucket/runs/r1 --runner spark":
        "tests/cluster/test_run_on_cluster.py::test_run_on_a_cluster_with_the_run_on_s3_writes_what_one_process_writes",
    "corpus-pipeline run --config C --set 'pipeline.inputs=[/data/CC-MAIN-2024-22]'":
        "tests/pipeline/test_local_run_without_jvm.py::test_a_local_run_of_a_small_input_never_asks_for_spark",
    "corpus-pipeline nightly --config configs/nightly.yaml": _FIRST_NIGHT,
    "make nightly": _FIRST_NIGHT,
    "corpus-pipeline ingest --input /data/fineweb/sample/10BT/ --output runs/r1/01_ingest --source fineweb "
    "--domain web": "tests/ingest/test_ingest_shapes.py::test_fineweb_parquet",
    "corpus-pipeline ingest --input daily.jsonl.zst --output DIR --source daily --domain news --text-field body "
    "--id-field key": "tests/ingest/test_ingest_stage.py::test_the_cli_verb_maps_fields_and_names_the_source",
    "corpus-pipeline ingest --format wikipedia --input enwiki-pages-articles.xml.bz2 --output DIR --source wikipedia "
    "--domain encyclopedia":
        "tests/ingest/test_ingest_formats.py::test_wikipedia_dump_keeps_articles_with_their_urls_and_rejects_redirects",
    "corpus-pipeline ingest --format text --set ingest.text_unit=block --input books/ --output DIR --source books":
        "tests/ingest/test_ingest_formats.py::test_text_as_blocks_and_as_whole_files",
    "corpus-pipeline run --config configs/demo.yaml --set embeddings.enabled=true "
    "--set 'dedup.methods=[exact, minhash, semantic]'":
        "tests/pipeline/test_pipeline_embed.py::test_a_local_run_embeds_and_dedups_by_meaning",
    "corpus-pipeline embed --run-dir data/runs/r1 --set embeddings.model=multilingual-e5-small":
        "tests/embeddings/test_embed_stage.py::test_the_stage_embeds_real_documents_under_the_local_runner",
    "corpus-pipeline export --input runs/r1/mix --output s3://team/datasets/web-v1 --format jsonl":
        "tests/export/test_export.py::test_an_export_to_a_store_writes_the_same_files_and_refuses_a_prefix_with_objects",
    "corpus-pipeline train --shards data/runs/demo --config configs/train_tiny.yaml --out data/runs/demo/model_tiny":
        "tests/train/test_train_checkpoint_files.py::test_a_run_directory_gives_the_shards_its_mix_stage_published",
    "corpus-pipeline train --shards data/runs/demo --config configs/train_tiny.yaml --out data/runs/demo/model_tiny "
    "--resume --set max_steps=400":
        "tests/train/test_train_checkpoint_files.py::test_another_runs_out_is_refused_and_resume_continues_it",
    "make train RUN_ID=demo TRAIN_OUT=data/runs/demo/model_make":
        "tests/train/test_train_processes.py::test_sigterm_checkpoints_and_resume_finishes",
    "corpus-pipeline ablate --a tokens_before --b tokens_after --eval tokens_heldout --out ablation/":
        "tests/train/test_train_ablate.py::test_the_corpus_that_matches_the_held_out_text_wins",
    "corpus-pipeline quality train-head --reference wiki.xml.bz2 news.jsonl --web crawl/*.warc.gz --output my_head.npz":
        "tests/embeddings/test_train_head_cli.py::test_it_trains_and_says_how_to_use_the_head",
    "corpus-pipeline quality train-head --output my_head.npz":
        "tests/embeddings/test_quality_head.py::test_training_from_sources_measures_each_source_and_writes_the_card",
    "make train": "tests/train/test_train_processes.py::test_sigterm_checkpoints_and_resume_finishes",
    "make eval-pii": "tests/pii/test_pii_eval.py::test_targets_on_presidio_synth_dev",
    "corpus-pipeline eval quality --labels mine.jsonl":
        "tests/quality/test_quality_eval.py::test_the_cli_verb_prints_the_table_and_json",
    "make eval-dedup": "tests/dedup/test_dedup_plant_eval.py::test_cli_registers_the_verb_and_the_eval_target",
    **{
        f"make {stage}": _STAGE_RULE
        for stage in (
            "crawl", "extract", "ingest", "langid", "normalize", "embed", "dedup", "pii", "quality",
            "decontaminate", "train-tokenizer", "tokenize", "mix",
        )
    },  # fmt: skip
    "make pipeline": README_TEST,
}

_CLUSTER = "a Spark cluster (standalone, YARN, Kubernetes): tests/cluster submits to a loopback standalone master"
_STORE = "Common Crawl's bucket and a team's S3 store over the network: tests/storage runs these verbs on loopback S3"
_CRON = "root on the cron host (a system user, /etc/cron.d): test_readme checks docker/crontab against the README"
_DOCKER = "a Docker daemon and registry: tests/cluster/test_compose_file.py checks the compose file and Dockerfile"
_GPU = "GPUs (8 on a node, or 4 nodes) and torchrun across them: tests/train runs torchrun on CPU processes"
_SUITE = "the test suite itself, or its setup: installs from the package index (minutes) and runs every test"
_MINUTES = "minutes of CPU over the whole benchmark set; tests/evaluation tests the scoring on real data"

NOT_HERE = {
    "git clone <this repository> corpus_pipeline && cd corpus_pipeline": "the repository's own address",
    "make setup": _SUITE,
    "make test": _SUITE,
    "make test-fast": _SUITE,
    "make browser-for-tests": "apt-get as root (chromium for the report's browser test)",
    "make lint": "the linter, not a pipeline command: ruff over the project where it is checked out",
    "make bench": "the standard benchmarks: minutes (benchmarks/; tests/benchmarks checks their catalog)",
    "make demo-site": "a server that runs until Ctrl-C; tests/test_demo_run.py serves the same site",
    "make package": "a 295 MB venv-pack archive of a fresh venv (pip, minutes); tests/cluster checks its requirements",
    "make eval-extraction": _MINUTES,
    "make eval-langid": _MINUTES,
    "corpus-pipeline eval extraction --warc ../shared/data/web/pages.warc.gz --gold ../shared/data/web/gold.jsonl":
        _MINUTES,
    "corpus-pipeline eval langid --sentences ../shared/data/langid/sentences": _MINUTES,
    "useradd --system --create-home corpus": _CRON,
    "install -d -o corpus -g corpus /opt/corpus_pipeline /srv/corpus /srv/corpus/incoming /var/log/corpus-pipeline":
        _CRON,
    "sudo -u corpus git clone <this repository> /opt/corpus_pipeline && sudo -u corpus make -C /opt/corpus_pipeline "
    "setup": _CRON,
    "install -m 644 /opt/corpus_pipeline/docker/crontab /etc/cron.d/corpus-pipeline": _CRON,
    'make setup TORCH_SPEC="torch==2.13.0 --index-url https://download.pytorch.org/whl/cu128"':
        "a CUDA build of torch from PyTorch's own index, which this machine cannot reach",
    '.venv/bin/python -c "import torch; print(torch.cuda.is_available(), torch.cuda.device_count())"': _GPU,
    ".venv/bin/torchrun --standalone --nproc_per_node 8 --max-restarts 3 -m corpus_pipeline.cli train --shards "
    "data/runs/RUN_ID --config configs/train_gpt-124m.yaml --out data/runs/RUN_ID/model_gpt-124m --resume auto": _GPU,
    "make train RUN_ID=RUN_ID PRESET=gpt-124m NPROC=8": _GPU,
    ".venv/bin/torchrun --nnodes 4 --nproc_per_node 8 --max-restarts 3 --rdzv_id gpt13b-run1 --rdzv_backend c10d "
    "--rdzv_endpoint HOST:29500 -m corpus_pipeline.cli train --shards /shared/runs/RUN_ID --config "
    "configs/train_gpt-1.3b.yaml --out /shared/models/gpt13b-run1 --resume auto": _GPU,
    "sbatch --nodes=4 jobs/train_slurm.sbatch /shared/runs/RUN_ID configs/train_gpt-1.3b.yaml "
    "/shared/models/gpt13b-run1":
        "a Slurm cluster with GPUs: tests/train/test_train_configs.py checks that the script parses",
    "corpus-pipeline train --shards $RUN/tokens --out runs/gpt --config configs/train_tiny.yaml": _STORE,
}
_STORE_LINES = (
    "aws s3 cp --no-sign-request s3://commoncrawl/crawl-data/CC-MAIN-2024-22/wet.paths.gz - | zcat | head -3 > "
    "cc-slice.paths",
    "export AWS_PROFILE=team",
    "corpus-pipeline extract --input cc-slice.paths --output s3://team-corpus/runs/cc-2024-22/01_extract",
    "while read -r key; do",
    'aws s3 cp --no-sign-request "s3://commoncrawl/$key" - | aws s3 cp --endpoint-url https://minio.team.example - '
    '"s3://team-corpus/cc/$key"',
    "done < cc-slice.paths",
    "AWS_ENDPOINT_URL=https://minio.team.example corpus-pipeline extract --input s3://team-corpus/cc/ --output "
    "s3://team-corpus/runs/cc-2024-22/01_extract",
    "export AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=...",
    "RUN=s3://team-corpus/runs/cc-2024-22",
)
_CLUSTER_PREFIXES = ("spark-submit ", "submit", "}", "export PATH=$PWD/.venv/bin:$PATH")
_DOCKER_PREFIXES = ("docker ",)


def not_here(command: str) -> str | None:
    """Why `command` cannot run here, or None. The cluster and Docker recipes are named by how
    their lines start (a `submit` function and its calls, spark-submit's long lines)."""
    if command in NOT_HERE:
        return NOT_HERE[command]
    if command in _STORE_LINES:
        return _STORE
    if command.startswith(_CLUSTER_PREFIXES):
        return _CLUSTER
    if command.startswith(_DOCKER_PREFIXES):
        return _DOCKER
    return None
