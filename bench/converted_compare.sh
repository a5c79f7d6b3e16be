#!/bin/bash
# Converted real models against ONNX Runtime: converts the TFLite, TensorFlow (frozen GraphDef) and TF.js models of
# ../shared/models with `onyx convert`, then times onyx and ONNX Runtime on the same converted files side by side
# (bench/compare.py, alternating processes). What a user moving a model from TensorFlow gets, and a check that the
# converter writes files ONNX Runtime loads (a model it refuses shows as a failed ORT run).
#
# usage: bench/converted_compare.sh ONYX_BINARY [OUT_DIR] [compare.py options...]
#   OUT_DIR (default a temporary folder) keeps the converted files. Needs node with onnxruntime-node (NODE_PATH).
set -euo pipefail
ONYX=${1:?usage: bench/converted_compare.sh ONYX_BINARY [OUT_DIR] [compare.py options...]}
shift
OUT=${1:-}
if [ -n "$OUT" ] && [ "${OUT#-}" = "$OUT" ]; then shift; else OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT; fi
HERE=$(cd "$(dirname "$0")" && pwd)
SHARED=${ONYX_SHARED:-$HERE/../../shared}/models
mkdir -p "$OUT"
models=()
for src in "$SHARED"/tflite/*.tflite "$SHARED"/tflite/quant/*.tflite "$SHARED"/tf/*.pb \
           "$SHARED"/tfjs/graph/*/*.json "$SHARED"/tfjs/layers/*/*.json; do
  [ -f "$src" ] || continue
  name=$(echo "${src#"$SHARED"/}" | sed 's|/[^/]*\.json$||; s|[/.]|_|g')
  if "$ONYX" convert "$src" -o "$OUT/$name.onnx" > /dev/null 2> "$OUT/$name.err"; then
    models+=("$OUT/$name.onnx")
  else
    echo "convert failed: $src ($(tail -1 "$OUT/$name.err"))" >&2
  fi
done
[ ${#models[@]} -gt 0 ] || { echo "no model converted" >&2; exit 1; }
list=$(IFS=,; echo "${models[*]}")
/usr/bin/python3 "$HERE/compare.py" --onyx "$ONYX" --models "$list" "$@"
