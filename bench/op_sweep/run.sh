#!/bin/sh
# Operator by operator, onyx against ONNX Runtime: builds the one-node models of make_op_models.py into OUT (default
# /tmp/onyx-op-sweep) and times both engines on them with bench/compare.py, alternating, on the same inputs.
# Prints compare.py's table sorted by the onyx/ORT ratio, slowest first.
# usage: bench/op_sweep/run.sh ONYX [OUT] [compare.py options, e.g. --threads 1 --rounds 2 --runs 20]
#        ONLY=Elu,Softmax bench/op_sweep/run.sh ONYX ...   (cases whose names contain one of these)
set -eu
here=$(dirname "$0")
onyx=$1
out=${2:-/tmp/onyx-op-sweep}
[ $# -ge 2 ] && shift 2 || shift 1
/usr/bin/python3 "$here/make_op_models.py" "$out" --only "${ONLY:-}" > "$out.list"
models=$(paste -sd, "$out.list")
/usr/bin/python3 "$here/../compare.py" --onyx "$onyx" --models "$models" "$@" > "$out.table"
grep '^| model' "$out.table"
grep '^|---' "$out.table"
grep '^| [A-Za-z]' "$out.table" | grep -v '^| model' | sort -t'|' -k6,6 -g -r
grep -v '^|' "$out.table" | sed '/^$/d'
