#!/bin/bash
# Time to the first result, onyx against ONNX Runtime: session creation and the first run (onyx builds and JIT-compiles
# its oneDNN primitives, and reorders weights, on first use; ORT prepacks at creation), with a warm tuning cache and
# with an empty one (XDG_CACHE_HOME pointed at a fresh folder), 1 and 2 threads; medians of ROUNDS (default 3)
# processes each. Prints a Markdown table (docs/performance.md).
#
# usage: bench/time_to_first_run.sh ONYX_BINARY [MODEL...]
#   default models: the four float benchmark models (~/.cache/onyx-bench/models) and the three QDQ models
#   (/tmp/qm, made by bench/make_quantized_models.py) where present. Needs node with onnxruntime-node (NODE_PATH).
set -euo pipefail
B=$1; shift
M=$HOME/.cache/onyx-bench/models
ROUNDS=${ROUNDS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
MODELS=("$@")
if [ ${#MODELS[@]} -eq 0 ]; then
  for m in $M/resnet50.onnx $M/mobilenet_v2.onnx $M/squeezenet1_1.onnx $M/bert_like_enc12.onnx \
           /tmp/qm/resnet50_qdq.onnx /tmp/qm/mobilenet_v2_qdq.onnx /tmp/qm/squeezenet1_1_qdq.onnx; do
    [ -f "$m" ] && MODELS+=("$m")
  done
fi
COLD=$(mktemp -d)
trap 'rm -rf "$COLD"' EXIT
# "create first" of one JSON line (onyx bench --json or ort_runner.js)
pair() { /usr/bin/python3 -c 'import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print("%.3f %.3f" % (d["create_ms"], d["median_ms"]))'; }
# median of the ROUNDS pairs given on stdin, per column
median() { /usr/bin/python3 -c 'import sys,statistics as s; r=[list(map(float,l.split())) for l in sys.stdin if l.strip()]; print(" ".join("%.1f" % s.median(c) for c in zip(*r)))'; }
echo "| model | threads | onyx create | onyx first run | onyx, empty cache: create + first run | ORT create | ORT first run | onyx/ORT create + first run (warm) | (empty cache) |"
echo "|---|---|---|---|---|---|---|---|---|"
for m in "${MODELS[@]}"; do
  for t in 1 2; do
    "$B" bench "$m" --threads $t --runs 1 --warmup 0 > /dev/null 2>&1  # fills the tuning cache
    read -r oc of <<< "$(for _ in $(seq "$ROUNDS"); do "$B" bench "$m" --threads $t --runs 1 --warmup 0 --json | pair; done | median)"
    read -r cold <<< "$(for _ in $(seq "$ROUNDS"); do rm -rf "${COLD:?}"/*; XDG_CACHE_HOME=$COLD "$B" bench "$m" --threads $t --runs 1 --warmup 0 --json | pair | awk '{print $1 + $2}'; done | median)"
    read -r rc rf <<< "$(for _ in $(seq "$ROUNDS"); do node "$HERE/ort_runner.js" "$m" $t 1 0 | pair; done | median)"
    /usr/bin/python3 -c "print('| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | %.2f |' % ('$(basename "$m" .onnx)', $t, $oc, $of, $cold, $rc, $rf, ($oc + $of) / ($rc + $rf), $cold / ($rc + $rf)))"
  done
done
