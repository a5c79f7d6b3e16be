#!/bin/bash
# The TFLite converter on ../shared/models/tflite: every model converts, passes `onyx check --full` and runs; the two
# with cross-format twins are compared with them:
#   face_detection_short_range  vs onnx/testdata/blazeface_front_128x128 (same weights, ONNX Runtime's outputs; the
#                                  TFLite model concatenates the 512- and 384-anchor outputs), rtol 1e-4, atol 1e-4
#   selfie_segmentation.tflite  vs tfjs/graph/human_selfie converted by onyx, on TF.js's reference input. The twins
#                                  differ by construction: TFLite's HARD_SWISH divides by exactly 6 where the TF.js
#                                  graph multiplies by a float16-rounded 1/6 (0.166626), which moves the (near-zero)
#                                  outputs by up to 30% relative. So the 1/6 constants of the TF.js twin are made exact
#                                  first; then the outputs must agree to rtol 1e-3 (atol 1e-20: the outputs are tiny).
# A truncated file and a non-TFLite file give one-line errors (exit 1).
# Differential cases against LiteRT.js (check_tflite_refs.py: float outputs to rtol 1e-4 / atol 1e-5, quantized
# outputs within one step): the shared per-op models (ops/, float32 and uint8), the MobileNet v1 pair (quant/), and
# the generated single-operator cases of tests/data/tflite_ops (make_tflite_ops.py regenerates them).
# usage: run_tflite_models.sh ONYX_BINARY SHARED_DIR
set -u
ONYX=${1:?onyx binary}
SHARED=${2:?shared dir}
DIR=$SHARED/models/tflite
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
if [ ! -d "$DIR" ]; then echo "skip: no $DIR"; exit 0; fi
for f in "$DIR"/*.tflite; do
  n=$(basename "$f" .tflite)
  mkdir -p "$WORK/cases/$n"
  if ! "$ONYX" convert "$f" -o "$WORK/cases/$n/model.onnx" || ! "$ONYX" check --full "$WORK/cases/$n/model.onnx" ||
     ! "$ONYX" run "$WORK/cases/$n/model.onnx" > "$WORK/run.txt" 2>&1 || grep -qi "nan\|inf" "$WORK/run.txt"; then
    echo "FAIL $n: convert, check or run"; cat "$WORK/run.txt" 2>/dev/null; failures=$((failures + 1))
  fi
done
# Cross-format reference data sets.
ref_cases=0
TWIN=$SHARED/models/tfjs/graph/human_selfie/selfie.json
TWIN_DATA=$SHARED/models/tfjs/testdata/human_selfie/test_data_set_0
if [ -f "$TWIN" ] && [ -d "$TWIN_DATA" ] && [ -f "$WORK/cases/selfie_segmentation/model.onnx" ]; then
  ref_cases=$((ref_cases + 1))
  "$ONYX" convert "$TWIN" -o "$WORK/twin.onnx" --quiet || failures=$((failures + 1))
  /usr/bin/python3 - "$WORK/twin.onnx" <<'PY' || failures=$((failures + 1))
import sys
import numpy as np
import onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
patched = 0
for i, init in enumerate(m.graph.initializer):
    a = numpy_helper.to_array(init)
    if a.size == 1 and a.dtype == np.float32 and abs(float(a.ravel()[0]) - 1 / 6) < 1e-3:
        m.graph.initializer[i].CopyFrom(numpy_helper.from_array(np.full(a.shape, 1 / 6, np.float32), init.name))
        patched += 1
assert patched == 11, f"expected the 11 hard-swish constants, found {patched}"
onnx.save(m, sys.argv[1])
PY
  if ! "$ONYX" compare "$WORK/twin.onnx" "$WORK/cases/selfie_segmentation/model.onnx" --inputs "$TWIN_DATA" \
       --rtol 1e-3 --atol 1e-20 > "$WORK/twin.txt"; then
    echo "FAIL selfie_segmentation against its TF.js twin"; cat "$WORK/twin.txt"; failures=$((failures + 1))
  else
    echo "ok   selfie_segmentation agrees with its TF.js twin (rtol 1e-3)"
  fi
fi
BLAZE=$SHARED/models/onnx/testdata/blazeface_front_128x128/test_data_set_0
if [ -d "$BLAZE" ] && [ -f "$WORK/cases/face_detection_short_range/model.onnx" ]; then
  /usr/bin/python3 - "$BLAZE" "$WORK/cases/face_detection_short_range/test_data_set_0" <<'PY' || failures=$((failures + 1))
import os, shutil, sys
import numpy as np
from onnx import numpy_helper, load_tensor, save_tensor
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst)
shutil.copy(os.path.join(src, "input_0.pb"), dst)
out = [numpy_helper.to_array(load_tensor(os.path.join(src, f"output_{i}.pb"))) for i in range(4)]
# ONNX outputs: scores 512, scores 384, boxes 512, boxes 384; TFLite: regressors [1,896,16], classificators [1,896,1].
save_tensor(numpy_helper.from_array(np.concatenate([out[2], out[3]], axis=1), "regressors"), os.path.join(dst, "output_0.pb"))
save_tensor(numpy_helper.from_array(np.concatenate([out[0], out[1]], axis=1), "classificators"), os.path.join(dst, "output_1.pb"))
PY
  ref_cases=$((ref_cases + 1))
fi
if [ -d "$WORK/cases/face_detection_short_range/test_data_set_0" ]; then
  "$ONYX" conformance --rtol 1e-4 --atol 1e-4 "$WORK/cases/face_detection_short_range" || failures=$((failures + 1))
fi

# run / compare take the .tflite file itself (converted on the fly): unoptimized vs optimized must agree. The box
# regressors reach |137| (one float ulp there is 1.5e-5) and their entries near zero carry the rounding of the terms
# that cancelled; the kernels' summation orders differ by a few such ulps (4.6e-5 seen on one CI machine), so atol is
# 1e-4 (~7 ulps at the outputs' scale) rather than the default 1e-5, which is below one ulp there.
if "$ONYX" compare "$DIR/face_detection_short_range.tflite" --atol 1e-4 > "$WORK/direct.txt" 2>&1; then
  echo "ok   onyx compare on a .tflite file directly"
else
  echo "FAIL onyx compare on a .tflite file"; cat "$WORK/direct.txt"; failures=$((failures + 1))
fi

# info and visualize read it too; TFLite's recorded shapes become the outputs' declared shapes.
if "$ONYX" info "$DIR/face_detection_short_range.tflite" | grep -q "regressors  *float\[1,896,16\]" &&
   "$ONYX" visualize "$DIR/face_detection_short_range.tflite" -o "$WORK/graph.svg" && grep -q "<svg" "$WORK/graph.svg"; then
  echo "ok   onyx info / visualize on a .tflite file"
else
  echo "FAIL onyx info / visualize on a .tflite file"; failures=$((failures + 1))
fi

HERE=$(cd "$(dirname "$0")" && pwd)
ref_list=()
for d in "$DIR"/testdata/*/; do
  n=$(basename "$d")
  for m in "$DIR/ops/$n.tflite" "$DIR/quant/$n.tflite"; do
    if [ -f "$m" ]; then ref_list+=("$m:$d"); fi
  done
done
for d in "$HERE"/../../data/tflite_ops/*/; do
  if [ -f "$d/model.tflite" ]; then ref_list+=("$d/model.tflite:$d"); fi
done
if [ ${#ref_list[@]} -lt 100 ]; then
  echo "FAIL only ${#ref_list[@]} LiteRT.js reference cases found"; failures=$((failures + 1))
fi
/usr/bin/python3 "$HERE/check_tflite_refs.py" "$ONYX" "${ref_list[@]}" || failures=$((failures + 1))
ref_cases=$((ref_cases + ${#ref_list[@]}))
# Malformed and unsupported models: exit 1 or 3 with one line naming the file, the operator and its schema name.
ERR=$HERE/../../data/tflite_ops/errors
while IFS='|' read -r file needle; do
  case "$file" in '#'*|'') continue ;; esac
  "$ONYX" convert "$ERR/$file" -o "$WORK/err.onnx" > "$WORK/err.txt" 2>&1
  code=$?
  if { [ $code -ne 1 ] && [ $code -ne 3 ]; } || [ "$(wc -l < "$WORK/err.txt")" -ne 1 ] ||
     ! grep -qF "$file" "$WORK/err.txt" || ! grep -qF "$needle" "$WORK/err.txt"; then
    echo "FAIL $file: exit $code, expected '$needle': $(cat "$WORK/err.txt")"; failures=$((failures + 1))
  fi
done < "$ERR/expected.txt"

printf 'TFL3' > "$WORK/bad.tflite"
head -c 1000 "$DIR/face_detection_short_range.tflite" > "$WORK/truncated.tflite"
for bad in bad truncated; do
  "$ONYX" convert "$WORK/$bad.tflite" -o "$WORK/out.onnx" > "$WORK/err.txt" 2>&1
  code=$?
  if [ $code -ne 1 ] || [ "$(wc -l < "$WORK/err.txt")" -ne 1 ]; then
    echo "FAIL $bad.tflite: exit $code: $(cat "$WORK/err.txt")"; failures=$((failures + 1))
  else
    echo "ok   $bad.tflite: $(cat "$WORK/err.txt")"
  fi
done
# 60 copies of a model with random bytes overwritten: every conversion ends with a result or an error, no crash.
/usr/bin/python3 - "$ONYX" "$DIR/face_detection_short_range.tflite" "$WORK" <<'PY' || failures=$((failures + 1))
import random, subprocess, sys
onyx, model, work = sys.argv[1:]
data = open(model, "rb").read()
rng = random.Random(20261130)
crashes = 0
for k in range(60):
    b = bytearray(data)
    for _ in range(rng.randint(1, 20)):
        b[rng.randrange(len(b)) if rng.random() < 0.5 else rng.randrange(min(len(b), 4096))] = rng.randrange(256)
    open(f"{work}/mutated.tflite", "wb").write(b)
    r = subprocess.run([onyx, "convert", f"{work}/mutated.tflite", "-o", f"{work}/mutated.onnx", "--quiet"],
                       capture_output=True, timeout=120)
    if r.returncode not in (0, 1, 3):
        crashes += 1
        print(f"FAIL mutation {k}: exit {r.returncode}: {r.stderr.decode()[-300:]}")
print(f"{'ok  ' if crashes == 0 else 'FAIL'} 60 mutated models: {crashes} crashes")
sys.exit(1 if crashes else 0)
PY
echo "$(ls "$DIR"/*.tflite | wc -l) TFLite models converted and run, $ref_cases compared with references, $failures failures"
[ $failures -eq 0 ]
