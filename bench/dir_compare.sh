#!/bin/bash
# Every .onnx model of a folder in onyx and ONNX Runtime 1.30: first each model's output against ONNX Runtime's on
# one random input (onyx compare --reference, rtol 1e-3 / atol 1e-5; ORT's reference written once into DIR/ref/NAME
# by tests/quant/ort_reference.mjs at level all), then the latency side by side (bench/compare.py, which alternates
# the two engines). Float inputs are standard normal, integer inputs (token ids) uniform in [0, 1000); dynamic
# dimensions are taken as 1. Used by bench/torchvision/compare.sh and bench/breadth/compare.sh.
#
# usage: bench/dir_compare.sh ONYX_BINARY DIR [compare.py options...]   (e.g. --threads 1,2 --rounds 2 --runs 10)
#   MODELS=a,b picks models by name. Needs node with onnxruntime-node (NODE_PATH) and python3-onnx.
set -euo pipefail
ONYX=${1:?usage: bench/dir_compare.sh ONYX_BINARY DIR [compare.py options...]}
DIR=${2:?usage: bench/dir_compare.sh ONYX_BINARY DIR [compare.py options...]}
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
IFS=, read -r -a names <<< "${MODELS:-}"
[ ${#names[@]} -gt 0 ] || names=($(cd "$DIR" && ls *.onnx | sed 's/\.onnx$//'))
models=()
for n in "${names[@]}"; do
  m="$DIR/$n.onnx"
  [ -f "$m" ] || continue
  ref="$DIR/ref/$n"
  mkdir -p "$ref"
  if [ ! -f "$ref/output_0.pb" ]; then
    /usr/bin/python3 - "$m" "$ref/input_0.pb" <<'PY'
import sys
import numpy as np
import onnx
from onnx import mapping, numpy_helper
model = onnx.load(sys.argv[1], load_external_data=False)
inp = model.graph.input[0]
shape = [d.dim_value or 1 for d in inp.type.tensor_type.shape.dim]
dtype = mapping.TENSOR_TYPE_TO_NP_TYPE[inp.type.tensor_type.elem_type]  # onnx 1.12's name
rng = np.random.default_rng(0)
if np.issubdtype(dtype, np.integer):
    x = rng.integers(0, 1000, shape).astype(dtype)
else:
    x = rng.standard_normal(shape).astype(dtype)
open(sys.argv[2], "wb").write(numpy_helper.from_array(x, inp.name).SerializeToString())
PY
    node "$HERE/../tests/quant/ort_reference.mjs" "$m" "$ref/input_0.pb" "$ref" all 1 > /dev/null
  fi
  if verdict=$("$ONYX" compare "$m" --reference "$ref" --threads 1 2>&1 | tail -1); then :; fi
  echo "$n: $verdict"
  models+=("$m")
done
list=$(IFS=,; echo "${models[*]}")
/usr/bin/python3 "$HERE/compare.py" --onyx "$ONYX" --models "$list" "$@"
