#!/bin/bash
# Quantized models beyond the benchmark set, made by `onyx quantize` the way users make them, checked against ONNX
# Runtime 1.30 bit for bit (levels disabled and all) and timed side by side (bench/quant_compare.py):
#   efficientnet_b0, mobilenet_v3_large (torchvision, random weights): static QDQ with their SiLU / hard-swish
#       groups quantized (DQ -> Sigmoid -> Q, DQ, DQ -> Mul -> Q: com.microsoft QLinearSigmoid / QLinearMul)
#   yolo_like (make_yolo_like.py): Split, Concat, nearest Resize, MaxPool, SiLU
#   resnet50 (bench/export_models.py) in QOperator form (--format qoperator), and the ResNet-50 and EfficientNet-B0
#       models as ONNX Runtime's level-all optimizer saves them (com.microsoft QLinearConv channels last, NhwcMaxPool)
# usage: bench/quant_breadth/run.sh ONYX [OUT_DIR]   (NODE_PATH must reach onnxruntime-node; calibration: 4 random
#        inputs, which is enough for speed and exactness, not for accuracy)
set -euo pipefail
ONYX=$(readlink -f "$1")
OUT=${2:-$HOME/.cache/onyx-bench/quant_breadth}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$HERE/../..
PY=/usr/bin/python3
mkdir -p "$OUT"
TV=${TV_DIR:-$HOME/.cache/onyx-bench/torchvision}
$PY "$ROOT/bench/torchvision/export_models.py" "$TV" efficientnet_b0 mobilenet_v3_large >/dev/null
[ -f "$OUT/yolo_like.onnx" ] || $PY "$HERE/make_yolo_like.py" "$OUT/yolo_like.onnx" 2>/dev/null
calib() {  # calib DIR C H W
  mkdir -p "$1"
  $PY -c "
import numpy as np, sys
r = np.random.default_rng(1)
for i in range(4): np.save('$1/s%d.npy' % i, r.uniform(-1, 1, (1, $2, $3, $4)).astype(np.float32))"
}
calib "$OUT/cal224" 3 224 224
calib "$OUT/cal320" 3 320 320
OPS=Conv,MatMul,Gemm,Add,Mul,Concat,MaxPool,AveragePool,GlobalAveragePool,Relu,Clip,Sigmoid,Resize,Split
q() {  # q SRC OUT CAL [args]
  [ -f "$2" ] || "$ONYX" quantize "$1" -o "$2" --mode static --calibration "$3" --per-channel --quiet "${@:4}"
}
q "$TV/efficientnet_b0.onnx" "$OUT/efficientnet_b0_qdq.onnx" "$OUT/cal224" --op-types $OPS
q "$TV/mobilenet_v3_large.onnx" "$OUT/mobilenet_v3_large_qdq.onnx" "$OUT/cal224" --op-types $OPS
q "$OUT/yolo_like.onnx" "$OUT/yolo_like_qdq.onnx" "$OUT/cal320" --op-types $OPS
q "$HOME/.cache/onyx-bench/models/resnet50.onnx" "$OUT/resnet50_qoperator.onnx" "$OUT/cal224" --format qoperator
for m in resnet50_qoperator efficientnet_b0_qdq; do
  [ -f "$OUT/${m}_ort_all.onnx" ] || node "$HERE/ort_optimize.mjs" "$OUT/$m.onnx" "$OUT/${m}_ort_all.onnx" 2>/dev/null
done
MODELS="efficientnet_b0_qdq mobilenet_v3_large_qdq yolo_like_qdq resnet50_qoperator resnet50_qoperator_ort_all
efficientnet_b0_qdq_ort_all"
status=0
for m in $MODELS; do
  $PY "$HERE/check_exact.py" "$ONYX" "$OUT/$m.onnx" || status=1
done
paths=$(for m in $MODELS; do echo "$OUT/$m.onnx"; done)
$PY "$ROOT/bench/quant_compare.py" "$ONYX" $paths --threads 1,2 --rounds "${ROUNDS:-2}" --runs "${RUNS:-20}" --no-ref
exit $status
