#!/bin/bash
# Sequence models (bench/breadth/export_models.py: LSTM, GRU, Transformer encoders, a speech front end, a text CNN)
# in onyx and ONNX Runtime 1.30: outputs against ONNX Runtime's, then latency side by side (bench/dir_compare.sh).
#
# usage: bench/breadth/compare.sh ONYX_BINARY [compare.py options...]   (e.g. --threads 1,2 --rounds 2 --runs 10)
#   MODELS=lstm2_256,text_cnn to pick models; BREADTH_DIR (default ~/.cache/onyx-bench/breadth) holds the exported
#   files and the references. Needs node with onnxruntime-node (NODE_PATH), python3-torch.
set -euo pipefail
ONYX=${1:?usage: bench/breadth/compare.sh ONYX_BINARY [compare.py options...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${BREADTH_DIR:-$HOME/.cache/onyx-bench/breadth}
IFS=, read -r -a names <<< "${MODELS:-}"
/usr/bin/python3 "$HERE/export_models.py" "$DIR" "${names[@]}" || true
exec "$HERE/../dir_compare.sh" "$ONYX" "$DIR" "$@"
