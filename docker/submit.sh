#!/bin/sh
# Submit one of the project's jobs to the compose cluster (docker/compose.yaml, service `submit`):
#   submit.sh STAGE [ARGS...]     ->  spark-submit /opt/corpus_pipeline/jobs/stage.py STAGE ARGS...
#   submit.sh pipeline|nightly    ->  spark-submit /opt/corpus_pipeline/jobs/pipeline.py (nightly.py) ARGS...
# The driver runs in this container (client mode); executors on the workers connect back to it by
# IP, since this container's hostname is not known to them. jobs/stage.py names the stages.
set -eu
jobs=/opt/corpus_pipeline/jobs
if [ $# -eq 0 ]; then
    echo "usage: submit.sh STAGE|pipeline|nightly [ARGS...]" >&2
    exit 2
fi
case "$1" in
    pipeline | nightly) entry="$jobs/$1.py"; shift ;;
    *) entry="$jobs/stage.py" ;;
esac
exec /opt/spark/bin/spark-submit \
    --master "${SPARK_MASTER_URL:-spark://spark-master:7077}" \
    --conf "spark.driver.host=$(hostname -i | cut -d' ' -f1)" \
    "$entry" "$@"
