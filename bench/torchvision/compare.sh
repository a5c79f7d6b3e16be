#!/bin/bash
# torchvision's models (bench/torchvision/export_models.py) in onyx and ONNX Runtime 1.30: first each model's output
# against ONNX Runtime's on one random input (onyx compare --reference, rtol 1e-3 / atol 1e-5; ORT's reference
# written by tests/quant/ort_reference.mjs at level all), then the latency side by side (bench/compare.py, which
# alternates the two engines). Architectures outside the four benchmark models: where onyx falls behind.
#
# usage: bench/torchvision/compare.sh ONYX_BINARY [compare.py options...]   (e.g. --threads 1,2 --rounds 2 --runs 10)
#   MODELS=densenet121,efficientnet_b0 to pick models; TV_DIR (default ~/.cache/onyx-bench/torchvision) holds the
#   exported files and the references. Needs node with onnxruntime-node (NODE_PATH), python3-torch/-torchvision.
set -euo pipefail
ONYX=${1:?usage: bench/torchvision/compare.sh ONYX_BINARY [compare.py options...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${TV_DIR:-$HOME/.cache/onyx-bench/torchvision}
IFS=, read -r -a names <<< "${MODELS:-}"
/usr/bin/python3 "$HERE/export_models.py" "$DIR" "${names[@]}" || true
[ ${#names[@]} -gt 0 ] || names=($(cd "$DIR" && ls *.onnx | sed 's/\.onnx$//'))
models=()
for n in "${names[@]}"; do
  m="$DIR/$n.onnx"
  [ -f "$m" ] || continue
  ref="$DIR/ref/$n"
  mkdir -p "$ref"
  if [ ! -f "$ref/output_0.pb" ]; then
    /usr/bin/python3 - "$m" "$ref/input_0.pb" <<'EOF'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
model = onnx.load(sys.argv[1], load_external_data=False)
inp = model.graph.input[0]
shape = [d.dim_value or 1 for d in inp.type.tensor_type.shape.dim]
x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
open(sys.argv[2], "wb").write(numpy_helper.from_array(x, inp.name).SerializeToString())
EOF
    node "$HERE/../../tests/quant/ort_reference.mjs" "$m" "$ref/input_0.pb" "$ref" all 1 > /dev/null
  fi
  if verdict=$("$ONYX" compare "$m" --reference "$ref" --threads 1 2>&1 | tail -1); then :; fi
  echo "$n: $verdict"
  models+=("$m")
done
list=$(IFS=,; echo "${models[*]}")
/usr/bin/python3 "$HERE/../compare.py" --onyx "$ONYX" --models "$list" "$@"
