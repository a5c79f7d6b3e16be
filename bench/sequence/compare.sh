#!/bin/bash
# Sequence models (bench/sequence/export_models.py: LSTM, GRU, Transformer encoders, a speech front end, a text CNN)
# in onyx and ONNX Runtime 1.30: outputs against ONNX Runtime's, then latency side by side (bench/dir_compare.sh).
#
# usage: bench/sequence/compare.sh ONYX_BINARY [compare.py options...]   (e.g. --threads 1,2 --rounds 2 --runs 10)
#   MODELS=lstm2_256,text_cnn to pick models; SEQ_DIR (default ~/.cache/onyx-bench/sequence) holds the exported
#   files and the references. Needs node with onnxruntime-node (NODE_PATH), python3-torch.
set -euo pipefail
ONYX=${1:?usage: bench/sequence/compare.sh ONYX_BINARY [compare.py options...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${SEQ_DIR:-$HOME/.cache/onyx-bench/sequence}
IFS=, read -r -a names <<< "${MODELS:-}"
/usr/bin/python3 "$HERE/export_models.py" "$DIR" "${names[@]}" || true
exec "$HERE/../dir_compare.sh" "$ONYX" "$DIR" "$@"
