# Spark with corpus_pipeline installed: the image of the standalone cluster in docker/compose.yaml,
# and a `spark.kubernetes.container.image` for Spark on Kubernetes (README, "Running on a cluster").
# Build from the repository root (docker/spark.Dockerfile.dockerignore keeps .venv and data out):
#   docker build -f docker/spark.Dockerfile -t corpus-pipeline-spark .
#
# The official image (github.com/apache/spark-docker): Spark in /opt/spark (SPARK_HOME), Ubuntu 22.04's
# python3 (3.10) with pip, user `spark` (uid 185), and /opt/entrypoint.sh, which runs Kubernetes'
# `driver`/`executor` commands and passes any other command through. Spark puts its own
# python/lib/pyspark.zip on every driver's and executor's PYTHONPATH, so pyspark is not pip-installed.
# 4.2.0: the release image closest to the development .venv's pyspark (4.3); another Spark:
#   docker build --build-arg SPARK_IMAGE=apache/spark:4.1.1-python3 ...
ARG SPARK_IMAGE=apache/spark:4.2.0-python3

# The wheel, built with the setuptools version pyproject.toml asks for (pip's build isolation).
FROM ${SPARK_IMAGE} AS wheel
USER root
WORKDIR /src
COPY pyproject.toml README.md ./
COPY corpus_pipeline ./corpus_pipeline
RUN python3 -m pip install --no-cache-dir --upgrade pip \
    && python3 -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM ${SPARK_IMAGE}
USER root
COPY --from=wheel /wheels /tmp/wheels
COPY cluster/runtime_requirements.py /tmp/runtime_requirements.py
# Ubuntu's pip (22.0) predates normalized extra names (PEP 685): it would skip lxml's `html-clean`
# extra that trafilatura needs (cluster/pack_env.sh met the same with pip 23.2), so upgrade it first.
RUN set -eux; \
    python3 -m pip install --no-cache-dir --upgrade pip; \
    python3 /tmp/runtime_requirements.py /tmp/wheels/corpus_pipeline-*.whl > /tmp/requirements.txt; \
    python3 -m pip install --no-cache-dir -r /tmp/requirements.txt; \
    python3 -m pip install --no-cache-dir --no-deps /tmp/wheels/corpus_pipeline-*.whl; \
    rm -rf /tmp/wheels /tmp/requirements.txt /tmp/runtime_requirements.py; \
    PYTHONPATH="$(echo /opt/spark/python/lib/*.zip | tr ' ' ':')" python3 -m corpus_pipeline.cli --help > /dev/null

# spark-submit entry points and configs, at the paths README and compose.yaml use (submit.sh keeps
# its executable bit from git).
COPY jobs /opt/corpus_pipeline/jobs
COPY configs /opt/corpus_pipeline/configs
COPY docker/submit.sh /opt/corpus_pipeline/submit.sh
# Stage outputs of the compose cluster (a named volume takes this directory's owner when first used).
RUN mkdir -p /data && chown spark:spark /data

ENV PYSPARK_PYTHON=python3 \
    PYSPARK_DRIVER_PYTHON=python3
WORKDIR /opt/spark/work-dir
USER spark
