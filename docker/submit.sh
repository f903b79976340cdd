#!/bin/sh
# Submit one of the project's jobs to the compose cluster (docker/compose.yaml, service `submit`):
#   submit.sh STAGE [ARGS...]  ->  spark-submit /opt/corpus_pipeline/jobs/STAGE.py ARGS...
# The driver runs in this container (client mode); executors on the workers connect back to it by
# IP, since this container's hostname is not known to them.
set -eu
jobs=/opt/corpus_pipeline/jobs
if [ $# -eq 0 ] || [ ! -f "$jobs/$1.py" ]; then
    echo "usage: submit.sh STAGE [ARGS...]; STAGE is one of:" $(cd "$jobs" && ls *.py | sed 's/\.py$//') >&2
    exit 2
fi
stage=$1
shift
exec /opt/spark/bin/spark-submit \
    --master "${SPARK_MASTER_URL:-spark://spark-master:7077}" \
    --conf "spark.driver.host=$(hostname -i | cut -d' ' -f1)" \
    "$jobs/$stage.py" "$@"
