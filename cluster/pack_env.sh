#!/usr/bin/env bash
# Pack the project for `spark-submit --archives ENV.tar.gz#environment`:
#   cluster/pack_env.sh PYTHON WHEEL OUTPUT [PYTHON_PREFIX]
# A fresh venv gets the wheel (a real install: the development .venv has the project editable, which
# venv-pack refuses and a cluster could not import) and the runtime requirements a Spark cluster lacks
# (cluster/runtime_requirements.py: no pyspark, no torch). venv-pack then relocates it. PYTHON_PREFIX
# rewrites the interpreter link for the cluster nodes (e.g. /usr when they have /usr/bin/python3.X);
# without it the env expects PYTHON's own prefix on every node.
set -euo pipefail

if [[ $# -lt 3 || $# -gt 4 ]]; then
    echo "usage: $0 PYTHON WHEEL OUTPUT [PYTHON_PREFIX]" >&2
    exit 2
fi
python=$1 wheel=$2 output=$3 python_prefix=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
venv_pack=$(dirname "$python")/venv-pack
if [[ ! -x $venv_pack ]]; then
    echo "$0: $venv_pack not found: install the dev extra (pip install -e '.[dev]')" >&2
    exit 1
fi

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
"$python" -m venv "$workdir/env"
# The pip that venv bundles (23.2 with Python 3.11) predates normalized extra names (PEP 685): it
# reads lxml 6's `html-clean` extra as missing and leaves out lxml_html_clean, without which every
# trafilatura extraction fails.
"$workdir/env/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$python" "$here/runtime_requirements.py" "$wheel" > "$workdir/requirements.txt"
"$workdir/env/bin/python" -m pip install --quiet --disable-pip-version-check -r "$workdir/requirements.txt"
"$workdir/env/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$wheel"
# Every requirement met except those the cluster's Spark provides.
problems=$("$workdir/env/bin/python" -m pip check 2>&1 | grep -vE " requires (pyspark|py4j),|^No broken requirements" || true)
if [[ -n $problems ]]; then
    echo "$0: the packed environment is incomplete:" >&2
    echo "$problems" >&2
    exit 1
fi

pack_args=(--prefix "$workdir/env" --output "$output" --force --quiet)
if [[ -n $python_prefix ]]; then
    pack_args+=(--python-prefix "$python_prefix")
fi
"$venv_pack" "${pack_args[@]}"
echo "$output: $(du -h "$output" | cut -f1) ($(wc -l < "$workdir/requirements.txt") requirements + $(basename "$wheel"))"
