#!/usr/bin/env bash
# Load test of `onyx serve` on loopback with wrk (Debian's `wrk` package), the numbers of docs/serve.md:
#   1. BlazeFace (models/blazeface), binary tensor requests, concurrency 8 for DURATION s: errors, requests/s,
#      p50/p99 latency.
#   2. ResNet-50 (~/.cache/onyx-bench/models/resnet50.onnx, its batch dim made symbolic in a copy), concurrency 16
#      for DURATION s, without and with dynamic batching (--max-batch-size 16 --max-queue-delay-us 5000), ROUNDS
#      times alternating (the machine's noise then hits both alike), with SERVE_OPTS (default "--threads 2").
#   3. `onyx batch` over 64 ResNet-50 inputs, --batch-size 1 against --batch-size 8, ROUNDS times alternating, with
#      BATCH_OPTS (default "--workers 1 --threads 2").
# Not part of ctest. Needs /usr/bin/python3 with numpy and onnx (Debian), and wrk. SKIP_BLAZEFACE=1,
# SKIP_SERVE=1, SKIP_BATCH=1 leave parts out.
#
#   bench/serve_load.sh [ONYX_BINARY] [DURATION_S]      (defaults: build/bin/onyx, 20; ROUNDS default 1)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ONYX=${1:-$ROOT/build/bin/onyx}
DURATION=${2:-20}
ROUNDS=${ROUNDS:-1}
SERVE_OPTS=${SERVE_OPTS:---threads 2}
BATCH_OPTS=${BATCH_OPTS:---workers 1 --threads 2}
RESNET=${RESNET:-$HOME/.cache/onyx-bench/models/resnet50.onnx}
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 1; }
TMP=$(mktemp -d)
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$TMP"
}
trap cleanup EXIT

# Request bodies (JSON header + raw little-endian floats) and the ResNet-50 copy with a symbolic batch dim.
/usr/bin/python3 - "$ROOT" "$TMP" "$RESNET" <<'PY'
import json, sys
import numpy as np, onnx
root, tmp, resnet = sys.argv[1:4]
def body(name, input_name, shape):
    x = np.random.default_rng(0).random(shape, dtype=np.float32)
    hdr = json.dumps({"inputs": [{"name": input_name, "shape": list(shape), "datatype": "FP32",
                                  "parameters": {"binary_data_size": x.nbytes}}],
                      "parameters": {"binary_data_output": True}}).encode()
    open(f"{tmp}/{name}.body", "wb").write(hdr + x.tobytes())
    open(f"{tmp}/{name}.hdr", "w").write(str(len(hdr)))
body("blazeface", "input:0", (1, 128, 128, 3))
m = onnx.load(resnet)
for v in (m.graph.input[0], m.graph.output[0]):
    v.type.tensor_type.shape.dim[0].dim_param = "N"
onnx.save(m, f"{tmp}/resnet50_dyn.onnx")
body("resnet50", m.graph.input[0].name, (1, 3, 224, 224))
import os
os.makedirs(f"{tmp}/items")
rng = np.random.default_rng(1)
for i in range(64):
    np.save(f"{tmp}/items/img{i:02d}.npy", rng.random((1, 3, 224, 224), dtype=np.float32))
PY

cat > "$TMP/post.lua" <<'LUA'
local f = assert(io.open(os.getenv("BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/octet-stream"
wrk.headers["Inference-Header-Content-Length"] = os.getenv("HDR_LEN")
LUA

# serve MODEL NAME [options...]: starts the server on a free port, sets URL.
serve() {
  local model=$1 name=$2
  shift 2
  "$ONYX" serve "$model" --name "$name" --port 0 --quiet "$@" >"$TMP/server.out" 2>"$TMP/server.err" &
  SERVER_PID=$!
  for _ in $(seq 600); do
    if grep -q "listening on" "$TMP/server.out"; then break; fi
    sleep 0.1
  done
  URL=$(sed -n 's/^listening on //p' "$TMP/server.out")
  [ -n "$URL" ] || { cat "$TMP/server.err" >&2; exit 1; }
}
stop() {
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || true
  SERVER_PID=""
}
# load NAME CONNECTIONS LABEL: a short warm-up, then the measured run; prints wrk's summary and the batch sizes.
load() {
  local name=$1 conns=$2 label=$3
  local threads=$((conns < 2 ? 1 : 2))  # wrk needs a connection per thread
  BODY="$TMP/$name.body" HDR_LEN=$(cat "$TMP/$name.hdr") wrk -t"$threads" -c"$conns" -d3s --timeout 60s -s "$TMP/post.lua" \
    "$URL/v2/models/$name/infer" >/dev/null
  echo "== $label"
  BODY="$TMP/$name.body" HDR_LEN=$(cat "$TMP/$name.hdr") wrk -t"$threads" -c"$conns" -d"${DURATION}s" --timeout 60s --latency \
    -s "$TMP/post.lua" "$URL/v2/models/$name/infer" | grep -E "Latency|50%|99%|Requests/sec|requests in|Non-2xx|Socket errors"
  curl -s "$URL/metrics" | grep -E "^onyx_inference_batch_size_(sum|count)" || true
}

if [ -z "${SKIP_BLAZEFACE:-}" ]; then
  serve "$ROOT/models/blazeface/model.onnx" blazeface --threads 1 --concurrency 2
  load blazeface 8 "BlazeFace, binary, concurrency 8, ${DURATION}s (--threads 1 --concurrency 2)"
  # Concurrency 1: the end-to-end latency against the run alone (issue 20: at most the run time + 0.3 ms).
  load blazeface 1 "BlazeFace, binary, concurrency 1, ${DURATION}s (--threads 1 --concurrency 2)"
  stop
  echo "the run alone (onyx bench --threads 1):"
  "$ONYX" bench "$ROOT/models/blazeface/model.onnx" --threads 1 --runs 200 | grep -E "median_ms|min_ms"
fi

for round in $(seq "$ROUNDS"); do
  if [ -z "${SKIP_SERVE:-}" ]; then
    # shellcheck disable=SC2086  # SERVE_OPTS is a list of options
    serve "$TMP/resnet50_dyn.onnx" resnet50 $SERVE_OPTS
    load resnet50 16 "round $round: ResNet-50, binary, concurrency 16, ${DURATION}s, no batching ($SERVE_OPTS)"
    stop
    # shellcheck disable=SC2086
    serve "$TMP/resnet50_dyn.onnx" resnet50 $SERVE_OPTS --max-batch-size 16 --max-queue-delay-us 5000
    load resnet50 16 "round $round: ResNet-50, binary, concurrency 16, ${DURATION}s, dynamic batching (max 16, 5 ms; $SERVE_OPTS)"
    stop
  fi
  if [ -z "${SKIP_BATCH:-}" ]; then
    for bs in 1 8; do
      rm -rf "$TMP/out"
      echo "== round $round: onyx batch, 64 ResNet-50 inputs, --batch-size $bs $BATCH_OPTS"
      # shellcheck disable=SC2086
      "$ONYX" batch "$TMP/resnet50_dyn.onnx" --inputs "$TMP/items" --output-dir "$TMP/out" --batch-size "$bs" \
        $BATCH_OPTS
    done
  fi
done
