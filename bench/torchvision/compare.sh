#!/bin/bash
# torchvision's models (bench/torchvision/export_models.py) in onyx and ONNX Runtime 1.30: first each model's output
# against ONNX Runtime's on one random input, then the latency side by side (bench/dir_compare.sh).
# Architectures outside the four benchmark models: where onyx falls behind.
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
exec "$HERE/../dir_compare.sh" "$ONYX" "$DIR" "$@"
