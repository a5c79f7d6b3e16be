#!/bin/bash
# SavedModel conversion: each SavedModel of SHARED_DIR/models/tf/saved_model (written by TensorFlow, from TensorFlow
# Serving's test data; SHARED_DIR/models/README.md gives what each computes) is converted for a signature, checked
# (`onyx check --full`), run on generated inputs and compared with the signature's closed form (numpy). Then the
# errors: a directory that is not a SavedModel, an unknown signature, a stateful signature (AssignAdd).
#
# usage: run_saved_models.sh ONYX SHARED_DIR
set -u
ONYX=$1
SM=$2/models/tf/saved_model
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok    $1"; }
bad() { fail=$((fail + 1)); echo "FAIL  $1: $2"; }

# case LABEL DIR "CONVERT_ARGS" INPUT_NAME INPUT_SHAPE OUTPUT_NAME EXPR
# EXPR: the closed form as a numpy expression of x (the input), or of nothing for input-less signatures.
case_() {
  local label=$1 dir=$2 args=$3 in_name=$4 in_shape=$5 out_name=$6 expr=$7
  local d=$WORK/$label
  mkdir -p "$d"
  local msg
  # shellcheck disable=SC2086
  if ! msg=$("$ONYX" convert "$SM/$dir" -o "$d/m.onnx" --quiet $args 2>&1); then bad "$label" "convert: $msg"; return; fi
  if ! msg=$("$ONYX" check --full "$d/m.onnx" 2>&1); then bad "$label" "check: ${msg: -300}"; return; fi
  local run_args=()
  if [ -n "$in_name" ]; then
    $PY -c "import numpy as np; np.save('$d/x.npy', np.random.default_rng(7).uniform(-4, 4, $in_shape).astype(np.float32))"
    run_args=(--input "$in_name=$d/x.npy")
  fi
  if ! msg=$("$ONYX" run "$d/m.onnx" "${run_args[@]}" --output-dir "$d/out" 2>&1); then bad "$label" "run: $msg"; return; fi
  if msg=$($PY - "$d" "$out_name" "$expr" "$in_name" <<'PYEOF' 2>&1
import os, sys
import numpy as np
import onnx
d, out_name, expr, in_name = sys.argv[1:5]
model = onnx.load(os.path.join(d, "m.onnx"))
ins = [i.name for i in model.graph.input]
outs = [o.name for o in model.graph.output]
assert ins == ([in_name] if in_name else []), "inputs %s, expected [%s] (the signature's keys)" % (ins, in_name)
assert out_name in outs, "outputs %s lack '%s' (the signature's key)" % (outs, out_name)
x = np.load(os.path.join(d, "x.npy")) if in_name else None
want = np.asarray(eval(expr, {"np": np, "x": x, "d": d}), dtype=np.float32)
got = np.load(os.path.join(d, "out", out_name + ".npy"))
assert got.dtype == np.float32, "dtype %s" % got.dtype
assert got.shape == want.shape, "shape %s, expected %s" % (got.shape, want.shape)
err = float(np.max(np.abs(got - want))) if got.size else 0.0
assert np.allclose(got, want, rtol=1e-6, atol=1e-6), "max error %g" % err
print("max error %g" % err)
PYEOF
  ); then ok "$label ($msg)"; else bad "$label" "$msg"; fi
}

# expect_error LABEL PATTERN EXIT_CODE ONYX_ARGS...: fails unless onyx exits EXIT_CODE with one line matching PATTERN.
expect_error() {
  local label=$1 pattern=$2 code=$3
  shift 3
  local msg rc
  msg=$("$ONYX" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$code" ]; then bad "$label" "exit code $rc (expected $code): $msg"; return; fi
  if [ "$(printf '%s\n' "$msg" | wc -l)" -ne 1 ]; then bad "$label" "not one line: $msg"; return; fi
  if ! printf '%s' "$msg" | grep -q -- "$pattern"; then bad "$label" "'$msg' lacks '$pattern'"; return; fi
  ok "$label ($msg)"
}

# TF1 graphs: variables (VariableV2) from the checkpoint; inputs that are not Placeholders (x is read from a
# tf.Example parse) cut into graph inputs.
case_ tf1_half_plus_two saved_model_half_plus_two_cpu/00000123 "" x "(5, 1)" y "0.5 * x + 2"
case_ tf1_half_plus_two_x2_to_y3 saved_model_half_plus_two_cpu/00000123 "--signature regress_x2_to_y3" \
  inputs "(5, 1)" outputs "0.5 * x + 3"
case_ tf1_half_plus_three saved_model_half_plus_three/00000123 "" x "(5, 1)" y "0.5 * x + 3"
case_ tf1_half_plus_three_opset13 saved_model_half_plus_three/00000123 "--opset 13" x "(3, 1)" y "0.5 * x + 3"
case_ tf1_matrix_half_plus_two matrix_half_plus_two/1 "" x "(2, 3, 3)" y "0.5 * x + 2"
# get_counter returns the variable as stored: the 4 bytes of the checkpoint's only shard, read by numpy.
case_ tf1_counter_get saved_model_counter/00000123 "--signature get_counter" "" "" output \
  "np.fromfile('$SM/saved_model_counter/00000123/variables/variables.data-00000-of-00001', '<f4').reshape(())"
# TF2: resource variables captured by the signature's function (StatefulPartitionedCall), mapped to the
# checkpoint's object-graph keys; needs ConvertGraphJson's function inlining.
case_ tf2_half_plus_two saved_model_half_plus_two_tf2_cpu/00000123 "" x "(1,)" y "0.5 * x + 2"
case_ tf2_x2_to_y3 saved_model_half_plus_two_tf2_cpu/00000123 "--signature regress_x2_to_y3" inputs "(1,)" outputs \
  "0.5 * x + 3"

# Errors: one line each, no crash.
mkdir -p "$WORK/not_a_saved_model"
expect_error not_a_saved_model "not a SavedModel" 1 convert "$WORK/not_a_saved_model" -o "$WORK/x.onnx"
expect_error info_not_a_saved_model "not a SavedModel" 1 info "$WORK/not_a_saved_model"
expect_error unknown_signature "signatures: .*serving_default" 1 convert "$SM/saved_model_half_plus_two_cpu/00000123" \
  -o "$WORK/x.onnx" --signature nope
expect_error unknown_tag "no meta graph is tagged 'gpu'" 1 convert "$SM/saved_model_half_plus_two_cpu/00000123" \
  -o "$WORK/x.onnx" --tag gpu
expect_error stateful_signature "AssignAdd" 3 convert "$SM/saved_model_counter/00000123" -o "$WORK/x.onnx" \
  --signature incr_counter
expect_error signature_on_a_file "SavedModel directories only" 2 convert "$2/models/tf/human_selfie_frozen.pb" \
  -o "$WORK/x.onnx" --signature x
# A truncated checkpoint index: the error names the file.
cp -r "$SM/saved_model_half_plus_three/00000123" "$WORK/truncated" && chmod -R u+w "$WORK/truncated"
head -c 100 "$SM/saved_model_half_plus_three/00000123/variables/variables.index" >"$WORK/truncated/variables/variables.index"
expect_error truncated_index "variables.index" 1 convert "$WORK/truncated" -o "$WORK/x.onnx"

# The other verbs take the directory too (converted first).
if msg=$("$ONYX" info "$SM/saved_model_half_plus_three/00000123" 2>&1) && printf '%s' "$msg" | grep -q "x"; then
  ok "info_saved_model"
else
  bad "info_saved_model" "$msg"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
