#!/bin/bash
# Steady-state latency with an empty tuning cache against a warm one and ONNX Runtime: per round, one onyx process
# whose XDG_CACHE_HOME is a fresh folder (it times what its miss budget allows after its first run; the timed runs
# come after the warm-up), one onyx process with the user's cache, and one ORT process, in turn (1-thread runs pinned
# to CPU 1). Prints one line per round: median ms of each (create ms beside it).
#
# usage: bench/cold_cache_compare.sh ONYX_BINARY MODEL THREADS [ROUNDS]   (MODEL: a name in ~/.cache/onyx-bench/models
#   or a path; needs node with onnxruntime-node, NODE_PATH as bench/compare.py sets it up)
set -euo pipefail
B=$1; M=$2; T=$3; R=${4:-3}
[ -f "$M" ] || M=$HOME/.cache/onyx-bench/models/$M.onnx
HERE=$(cd "$(dirname "$0")" && pwd)
PIN=()
[ "$T" = 1 ] && PIN=(taskset -c 1)
COLD=$(mktemp -d)
trap 'rm -rf "$COLD"' EXIT
times() { /usr/bin/python3 -c 'import json,sys; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print("%.2f (create %.1f)" % (d["median_ms"], d["create_ms"]))'; }
for r in $(seq "$R"); do
  rm -rf "${COLD:?}"/*
  cold=$(XDG_CACHE_HOME=$COLD "${PIN[@]}" "$B" bench "$M" --threads "$T" --runs 20 --json 2>/dev/null | times)
  warm=$("${PIN[@]}" "$B" bench "$M" --threads "$T" --runs 20 --json 2>/dev/null | times)
  ort=$("${PIN[@]}" node "$HERE/ort_runner.js" "$M" "$T" 20 5 2>/dev/null | times)
  echo "$(basename "$M" .onnx) threads=$T round $r: onyx cold cache $cold | onyx warm cache $warm | ORT $ort"
done
