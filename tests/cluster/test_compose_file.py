"""docker/compose.yaml, docker/spark.Dockerfile and docker/submit.sh agree with each other and with
the repository (Docker is not needed: the files are parsed, not run)."""

from __future__ import annotations

import fnmatch
import re

import pytest
import yaml
from conftest import PROJECT_ROOT

from corpus_pipeline.engine.registry import STAGES

DOCKER = PROJECT_ROOT / "docker"
COMPOSE = yaml.safe_load((DOCKER / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
DOCKERFILE = (DOCKER / "spark.Dockerfile").read_text()
SUBMIT_SCRIPT = (DOCKER / "submit.sh").read_text()
WORKERS = ("spark-worker-1", "spark-worker-2")


def option(command: list[str], name: str) -> str:
    assert name in command, f"{name} missing from {command}"
    return command[command.index(name) + 1]


def published(service: dict) -> dict[int, int]:
    """container port -> host port."""
    pairs = (str(mapping).split(":") for mapping in service.get("ports", []))
    return {int(container): int(host) for host, container in pairs}


def master_url() -> str:
    command = SERVICES["spark-master"]["command"]
    return f"spark://{option(command, '--host')}:{option(command, '--port')}"


def test_a_master_two_workers_and_a_submit_service():
    assert set(SERVICES) == {"spark-master", *WORKERS, "submit"}
    spark_class = "/opt/spark/bin/spark-class"
    assert SERVICES["spark-master"]["command"][:2] == [spark_class, "org.apache.spark.deploy.master.Master"]
    for worker in WORKERS:
        assert SERVICES[worker]["command"][:2] == [spark_class, "org.apache.spark.deploy.worker.Worker"]


def test_master_listens_where_it_is_published_and_named():
    master = SERVICES["spark-master"]
    command = master["command"]
    assert option(command, "--host") == master["hostname"]
    ports = published(master)
    assert int(option(command, "--port")) in ports
    assert int(option(command, "--webui-port")) in ports


def test_workers_join_the_master_under_their_own_names():
    for worker in WORKERS:
        service = SERVICES[worker]
        command = service["command"]
        assert command[2] == master_url()
        assert option(command, "--host") == service["hostname"]
        assert int(option(command, "--webui-port")) in published(service)
        assert int(option(command, "--cores")) >= 1 and re.fullmatch(r"\d+[mg]", option(command, "--memory"))
        assert "spark-master" in service["depends_on"]


def test_no_two_services_publish_the_same_host_port():
    host_ports = [port for service in SERVICES.values() for port in published(service).values()]
    assert len(host_ports) == len(set(host_ports))


def test_every_node_sees_the_same_input_and_output_paths():
    """Tasks read inputs and write Parquet themselves: driver and executors need the same mounts."""
    mounts = {name: tuple(service["volumes"]) for name, service in SERVICES.items()}
    assert len(set(mounts.values())) == 1, mounts
    # SOURCE:TARGET[:MODE], where SOURCE may hold a ${VAR:-default} with its own colon
    targets = {re.search(r":(/[^:]*)(?::r[ow])?$", volume).group(1) for volume in mounts["spark-master"]}
    assert targets == {"/input", "/data"}
    assert "/data" in DOCKERFILE, "the image creates /data owned by spark, so the named volume is writable"


def test_submit_runs_a_job_against_the_master():
    submit = SERVICES["submit"]
    assert submit["profiles"] == ["submit"], "kept out of `docker compose up`"
    assert set(submit["depends_on"]) == set(WORKERS)
    assert submit["environment"]["SPARK_MASTER_URL"] == master_url()
    assert f"${{SPARK_MASTER_URL:-{master_url()}}}" in SUBMIT_SCRIPT
    (entrypoint,) = submit["entrypoint"]
    assert f"docker/submit.sh {entrypoint}" in DOCKERFILE
    jobs_in_image = re.search(r"^jobs=(\S+)$", SUBMIT_SCRIPT, re.MULTILINE).group(1)
    assert f"COPY jobs {jobs_in_image}" in DOCKERFILE
    stage = submit["command"][0]
    assert stage in {spec.name for spec in STAGES} and (PROJECT_ROOT / "jobs" / "stage.py").is_file()


def test_every_node_is_built_from_the_dockerfile_on_the_official_python_image():
    for service in SERVICES.values():
        build = service["build"]
        assert (DOCKER / build["context"] / build["dockerfile"]).resolve() == DOCKER / "spark.Dockerfile"
        assert service["image"] == SERVICES["spark-master"]["image"]
    base = re.search(r"^ARG SPARK_IMAGE=(\S+)$", DOCKERFILE, re.MULTILINE).group(1)
    assert re.fullmatch(r"apache/spark:4\.\d+\.\d+-python3", base), base


def dockerignore_allows(path: str) -> bool:
    """Docker's rule: the last matching pattern wins; `!` re-includes (patterns here are simple)."""
    allowed = True
    for line in (DOCKER / "spark.Dockerfile.dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated, pattern = line.startswith("!"), line.lstrip("!").rstrip("/")
        if fnmatch.fnmatch(path, pattern) or path.startswith(pattern + "/"):
            allowed = negated
    return allowed


# COPY [--flag...] SOURCE... DESTINATION, except copies from a build stage
COPIED = [
    path
    for sources in re.findall(r"^COPY (?!--from)(?:--\S+ )*(.+) \S+$", DOCKERFILE, re.MULTILINE)
    for path in sources.split()
]


def test_the_dockerfile_copies_the_project():
    assert {"pyproject.toml", "corpus_pipeline", "jobs", "cluster/runtime_requirements.py"} <= set(COPIED)


@pytest.mark.parametrize("path", COPIED)
def test_what_the_dockerfile_copies_exists_and_reaches_the_build(path):
    assert (PROJECT_ROOT / path).exists(), path
    assert dockerignore_allows(path), f"{path} is excluded by spark.Dockerfile.dockerignore"
