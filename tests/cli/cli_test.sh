#!/usr/bin/env bash
# The onyx CLI on good and bad input: every bad file gives a one-line error naming the file and a non-zero exit
# below 128 (no crash), never a hang.
set -u
ONYX=$1
SHARED=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MODEL=$ROOT/models/blazeface/model.onnx
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# expect_error NAME PATTERN CMD...: non-zero exit < 128, stderr one line matching PATTERN.
expect_error() {
  local name=$1 pattern=$2
  shift 2
  timeout 60 "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ $rc -eq 0 ]; then bad "$name: exit 0, expected an error"; return; fi
  if [ $rc -ge 124 ]; then bad "$name: exit $rc (crash or hang)"; cat "$TMP/err"; return; fi
  if ! grep -qE "$pattern" "$TMP/err"; then bad "$name: stderr does not match '$pattern':"; cat "$TMP/err"; return; fi
  if [ "$(wc -l <"$TMP/err")" -ne 1 ]; then bad "$name: error is not one line:"; cat "$TMP/err"; return; fi
  ok
}

expect_ok() {
  local name=$1 pattern=$2
  shift 2
  timeout 120 "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ $rc -ne 0 ]; then bad "$name: exit $rc"; cat "$TMP/err"; return; fi
  if ! grep -qE "$pattern" "$TMP/out"; then bad "$name: output does not match '$pattern'"; head -20 "$TMP/out"; return; fi
  ok
}

# --help on every verb.
for verb in info check run print conformance bench; do
  expect_ok "$verb --help" "usage: onyx $verb" "$ONYX" "$verb" --help
done
expect_ok "onyx --help" "commands:" "$ONYX" --help
expect_error "unknown verb" "unknown command 'frobnicate'" "$ONYX" frobnicate

# Good input.
expect_ok "info" "parameters: [0-9]+ in [0-9]+ initializers" "$ONYX" info "$MODEL"
expect_ok "info inputs" "input:0 +float\[1,128,128,3\]" "$ONYX" info "$MODEL"
expect_ok "check" "valid" "$ONYX" check "$MODEL"
expect_ok "run random" "output Identity:0 +tensor\(float\) \[1, 512, 1\]" "$ONYX" run "$MODEL" --seed 7
expect_ok "run file" "time: session" "$ONYX" run "$MODEL" --input "input:0=$ROOT/models/blazeface/test_data_set_0/input_0.pb" --output-dir "$TMP/out_npy"
[ -f "$TMP/out_npy/Identity_3:0.npy" ] || [ -f "$TMP/out_npy/Identity_3_0.npy" ] && ok || bad "run --output-dir wrote no .npy"
if /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  /usr/bin/python3 -c "import numpy as np; np.save('$TMP/in.npy', np.full((1,128,128,3), 0.5, np.float32))"
  expect_ok "run npy input" "output Identity:0" "$ONYX" run "$MODEL" --input "input:0=$TMP/in.npy"
fi
expect_ok "bench json" '^\{"create_ms": [0-9.]+, "median_ms": [0-9.]+, "min_ms": [0-9.]+, "mean_ms": [0-9.]+, "p90_ms": [0-9.]+, "peak_rss_mb": [0-9.]+' "$ONYX" bench "$MODEL" --runs 3 --warmup 1 --threads 1 --json
expect_ok "print" "Conv" "$ONYX" print "$MODEL"
# Under the fixed kernel choices: with the machine's tuning cache the blocked convolutions may run other kernels (own
# direct, Winograd), whose rounding differs; BlazeFace's outputs (up to 151) then differ from ONNX Runtime's by 2-6e-5
# at most whatever the choice, and which near-zero element passes atol 1e-5 + rtol would depend on the cache.
expect_ok "conformance" "^1 passed, 0 failed, 0 skipped" env ONYX_TUNING=off "$ONYX" conformance --atol 1e-5 "$ROOT/models/blazeface"

# Numeric options: the whole value must be a number in range, else a usage error (exit 2) naming the option.
expect_usage() {
  local name=$1 pattern=$2
  shift 2
  timeout 60 "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2 (usage)"; cat "$TMP/err"; return; fi
  if ! grep -qE -e "$pattern" "$TMP/err"; then bad "$name: stderr does not match '$pattern':"; cat "$TMP/err"; return; fi
  ok
}
expect_usage "run --threads -3" "--threads expects an integer.*'-3'" "$ONYX" run "$MODEL" --threads -3
expect_usage "run --threads abc" "--threads expects an integer.*'abc'" "$ONYX" run "$MODEL" --threads abc
expect_usage "run --seed x1" "--seed expects" "$ONYX" run "$MODEL" --seed x1
expect_usage "run --dim N=two" "--dim N expects" "$ONYX" run "$MODEL" --dim N=two
expect_usage "bench --runs 0" "--runs expects an integer from 1" "$ONYX" bench "$MODEL" --runs 0
expect_usage "bench --warmup -1" "--warmup expects" "$ONYX" bench "$MODEL" --warmup -1
expect_usage "compare --atol abc" "--atol expects a number.*'abc'" "$ONYX" compare "$MODEL" --atol abc
expect_usage "compare --rtol 1e-3x" "--rtol expects a number" "$ONYX" compare "$MODEL" --rtol 1e-3x
expect_usage "conformance --atol abc" "--atol expects a number" "$ONYX" conformance --atol abc "$ROOT/models/blazeface"
expect_usage "conformance --timeout 0" "--timeout expects" "$ONYX" conformance --timeout 0 "$ROOT/models/blazeface"

# Bad files.
expect_error "missing file" "cannot open.*no_such\.onnx" "$ONYX" info "$TMP/no_such.onnx"
head -c 5000 "$MODEL" >"$TMP/truncated.onnx"
expect_error "truncated" "truncated\.onnx.*(truncated|corrupt|invalid)" "$ONYX" info "$TMP/truncated.onnx"
echo "this is not a model" >"$TMP/text.onnx"
expect_error "not onnx" "text\.onnx.*(not|invalid)" "$ONYX" info "$TMP/text.onnx"
head -c 100000 /dev/urandom >"$TMP/random.onnx" 2>/dev/null
expect_error "random bytes" "random\.onnx" "$ONYX" run "$TMP/random.onnx"
: >"$TMP/empty.onnx"
expect_error "empty file" "empty\.onnx" "$ONYX" check "$TMP/empty.onnx"
expect_error "bad input shape" "input 'input:0' expects" "$ONYX" run "$MODEL" --input "input:0=$HERE/../../models/blazeface/test_data_set_0/output_0.pb"

if /usr/bin/python3 -c "import onnx" 2>/dev/null; then
  /usr/bin/python3 "$HERE/make_bad_models.py" "$TMP/bad"
  expect_ok "external data ok" "output y" "$ONYX" run "$TMP/bad/external_ok.onnx"
  expect_error "external absolute" "external_absolute\.onnx.*absolute path" "$ONYX" info "$TMP/bad/external_absolute.onnx"
  expect_error "external escape" "external_escape\.onnx.*leaves the model's folder" "$ONYX" info "$TMP/bad/external_escape.onnx"
  expect_error "external symlink" "external_symlink\.onnx.*outside the model's folder" "$ONYX" info "$TMP/bad/external_symlink.onnx"
  expect_error "external hard link" "external_hardlink\.onnx.*hard links" "$ONYX" info "$TMP/bad/external_hardlink.onnx"
  expect_error "external symlinked folder" "external_symlinked_folder\.onnx.*symlink" "$ONYX" info "$TMP/bad/external_symlinked_folder.onnx"
  expect_error "external inner symlink" "external_inner_symlink\.onnx.*symlink" "$ONYX" info "$TMP/bad/external_inner_symlink.onnx"
  expect_error "external FIFO" "external_fifo\.onnx.*FIFO" "$ONYX" info "$TMP/bad/external_fifo.onnx"
  expect_error "external folder" "external_folder\.onnx.*folder" "$ONYX" info "$TMP/bad/external_folder.onnx"
  expect_error "model is a folder" "is a folder" "$ONYX" info "$TMP/bad/sub"
  expect_error "external missing" "external_missing\.onnx.*no_such_file\.bin" "$ONYX" info "$TMP/bad/external_missing.onnx"
  expect_error "external past end" "external_past_end\.onnx.*past the end" "$ONYX" info "$TMP/bad/external_past_end.onnx"
  expect_error "huge dims" "huge_dims\.onnx.*tensor .huge.*(too large|holds only)" "$ONYX" run "$TMP/bad/huge_dims.onnx"
  expect_error "undefined input" "ghost" "$ONYX" run "$TMP/bad/undefined_input.onnx"
  timeout 60 "$ONYX" check "$TMP/bad/undefined_input.onnx" >"$TMP/out" 2>&1
  [ $? -eq 1 ] && grep -q "input 1 'ghost' is not defined" "$TMP/out" && ok || bad "check undefined input: $(cat "$TMP/out")"
  expect_error "unknown op" "unsupported operator: NoSuchOp" "$ONYX" run "$TMP/bad/unknown_op.onnx"
  # A declared output shape that contradicts the operator: only the full check (shape inference) sees it.
  /usr/bin/python3 -c "import onnx; from onnx import helper as h, TensorProto as T
g = h.make_graph([h.make_node('Relu', ['x'], ['y'])], 'g', [h.make_tensor_value_info('x', T.FLOAT, ['N', 3])],
                 [h.make_tensor_value_info('y', T.FLOAT, ['N', 4])])
onnx.save(h.make_model(g, opset_imports=[h.make_opsetid('', 13)]), '$TMP/bad/shape_conflict.onnx')"
  expect_ok "check without --full" "valid" "$ONYX" check "$TMP/bad/shape_conflict.onnx"
  timeout 60 "$ONYX" check --full "$TMP/bad/shape_conflict.onnx" >"$TMP/out" 2>&1
  [ $? -eq 1 ] && grep -q "inferred as float\[N,3\] but declared as float\[N,4\]" "$TMP/out" && ok || bad "check --full conflict: $(cat "$TMP/out")"
else
  echo "python3-onnx missing: hostile external-data models not tested"
fi

# Threads: by default as many as the CPUs the process may use (its affinity mask, a container's CPU quota).
if command -v taskset >/dev/null; then
  expect_ok "threads follow the affinity mask" "^threads: +1$" taskset -c 0 "$ONYX" bench "$MODEL" --runs 2
fi
# The commands that run models set libgomp's busy-wait (GOMP_SPINCOUNT, core/openmp_spin.h) before libgomp loads,
# unless the user chose one; the environment the server runs with shows it.
serve_environment() {  # serve_environment [VAR=value...]: the GOMP_SPINCOUNT entry of a running `onyx serve`
  env "$@" "$ONYX" serve "$MODEL" --port 0 --quiet >"$TMP/serve.out" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do grep -q "listening on" "$TMP/serve.out" && break; sleep 0.1; done
  tr '\0' '\n' <"/proc/$pid/environ" | grep -a "^GOMP_SPINCOUNT=" || echo "GOMP_SPINCOUNT unset"
  kill "$pid"
  wait "$pid" 2>/dev/null
}
got=$(serve_environment)
[[ "$got" =~ ^GOMP_SPINCOUNT=[0-9]+$ ]] && [ "${got#*=}" -ge 1000 ] && [ "${got#*=}" -le 300000 ] && ok ||
  bad "onyx serve's GOMP_SPINCOUNT: $got"
got=$(serve_environment GOMP_SPINCOUNT=77)
[ "$got" = "GOMP_SPINCOUNT=77" ] && ok || bad "a user's GOMP_SPINCOUNT was replaced: $got"
got=$(serve_environment ONYX_OPENMP_SPIN=default)
[ "$got" = "GOMP_SPINCOUNT unset" ] && ok || bad "ONYX_OPENMP_SPIN=default still set: $got"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
