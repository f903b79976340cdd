#!/usr/bin/env bash
# Two cores must count (issue #25): `corpus-pipeline run` on the 1,432 real pages (one WARC file, read
# in byte spans: engine.task_bytes) under --runner local (one process) and on Spark local[2], reps
# alternating, wall and CPU seconds of each process tree (the JVM and its Python workers too), the
# load average beside each run, and whether the token shards of every run are byte-identical.
# Run from the project root:   bash benchmarks/bench_cores_e2e.sh [REPS] [EXTRA --set ...]
#   REPS (default 2) of each runner; EXTRA: more `--set` overrides for both runners (say
#   engine.task_bytes=16777216). PY (default .venv/bin/python) and WORK (/tmp/cores) may be set.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
DATA="$HERE/../../shared/data"
PY="${PY:-$PWD/.venv/bin/python}"
WORK="${WORK:-/tmp/cores}"
REPS=${1:-2}; shift || true
EXTRA=("$@")
export SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON="$PY" PYTHONWARNINGS=ignore HF_HUB_OFFLINE=1
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"  # this checkout, in the driver and in Spark's workers
mkdir -p "$WORK"
TOK="$WORK/tokenizer.json"
[ -f "$TOK" ] || "$PY" - "$DATA/dedup/web_docs.jsonl" "$TOK" <<'PYEOF'
import json, sys
from tokenizers import Tokenizer, models, pre_tokenizers, decoders, trainers
tok = Tokenizer(models.BPE()); tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False); tok.decoder = decoders.ByteLevel()
texts = [json.loads(l)["text"] for l in open(sys.argv[1], encoding="utf-8")]
tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=32000, special_tokens=["<|endoftext|>", "<|pad|>"]))
tok.save(sys.argv[2])
PYEOF
config() {  # config MASTER: the run's YAML (every language kept, the gates passing, our tokenizer)
  cat > "$WORK/$1.yaml" <<YAML
data_root: $WORK/root-$1
spark:
  master: "$1"
  conf: {spark.driver.memory: 2g, spark.sql.shuffle.partitions: "4", spark.ui.enabled: "false"}
langid: {allowed_languages: [], min_score: 0.5}
quality: {gates: {min_vocab_coverage: 0.0}}
pipeline: {tokenizer: $TOK}
YAML
  echo "$WORK/$1.yaml"
}
# CPU of a whole process tree: a cgroup v1 cpuacct group where one can be made, else time(1)
CG=/sys/fs/cgroup/cpuacct/bench_cores_$$
mkdir -p "$CG" 2>/dev/null || CG=""
tree_cpu() {  # tree_cpu OUTFILE cmd... : runs cmd, writes "wall cpu" to OUTFILE
  local out=$1; shift
  local t0; t0=$(date +%s.%N)
  if [ -n "$CG" ]; then
    echo 0 > "$CG/cpuacct.usage"
    (echo $BASHPID > "$CG/cgroup.procs"; exec "$@"); local rc=$?
    python3 -c "print(round($(date +%s.%N)-$t0,2), round($(cat "$CG/cpuacct.usage")/1e9,2))" > "$out"
  else
    /usr/bin/time -f "%e %U %S" -o "$out.t" "$@"; local rc=$?
    read -r w u s < "$out.t"; python3 -c "print($w, round($u+$s,2))" > "$out"
  fi
  return $rc
}
run_one() {  # run_one SIDE REP: one fresh run; prints its JSON line
  local side=$1 rep=$2 master runner
  if [ "$side" = local ]; then master="local[1]"; runner=local; else master="local[2]"; runner=spark; fi
  local cfg; cfg=$(config "$master")
  rm -rf "$WORK/root-$master"
  local load0; load0=$(cut -d' ' -f1 /proc/loadavg)
  tree_cpu "$WORK/time" env RAYON_NUM_THREADS=$([ "$side" = local ] && echo 1 || echo 2) \
      "$PY" -m corpus_pipeline.cli run --runner "$runner" --config "$cfg" --set run_id=cores \
      --set "pipeline.inputs=[$DATA/web/pages.warc.gz]" "${EXTRA[@]}" >"$WORK/$side.$rep.log" 2>&1 \
      || { echo "$side failed: $(tail -5 "$WORK/$side.$rep.log")"; exit 1; }
  read -r w c < "$WORK/time"
  local shards; shards=$(cd "$WORK/root-$master/runs/cores/tokens" && cat ./*.bin ./*.idx | sha256sum | cut -c1-16)
  # extract's share of the fused pass's wall seconds (with langid, normalize), and its task count
  local extract; extract=$("$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['seconds'], d['tasks'])" \
      "$WORK/root-$master/runs/cores/01_extract/_stats.json")
  echo "{\"side\": \"$side\", \"rep\": $rep, \"wall_s\": $w, \"cpu_s\": $c, \"load_before\": $load0, \"load_after\": $(cut -d' ' -f1 /proc/loadavg), \"extract_s_tasks\": \"$extract\", \"shards_sha256\": \"$shards\"}"
}
for i in $(seq 1 "$REPS"); do
  run_one local "$i"
  run_one spark "$i"
done
[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
exit 0
