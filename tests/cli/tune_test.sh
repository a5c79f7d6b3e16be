#!/bin/bash
# `onyx tune`: fills the tuning cache (src/kernels/tuning_cache.h) for a small model whose 3x3 convolution has a
# choice (direct or Winograd), reuses it without --force, re-times with --force, survives a corrupt cache file, and
# leaves the cache alone under ONYX_TUNING=off. Also the command-line errors and exit codes.
# usage: tune_test.sh ONYX_BINARY
set -u
ONYX=${1:?onyx binary}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}

# A 3x3 stride-1 convolution 32 -> 64 channels (Winograd is a candidate) then Relu and a 1x1 convolution.
/usr/bin/python3 - "$WORK/conv.onnx" <<'PY'
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
rng = np.random.default_rng(5)
w = numpy_helper.from_array(rng.uniform(-1, 1, (64, 32, 3, 3)).astype(np.float32), "w")
b = numpy_helper.from_array(rng.uniform(-1, 1, (64,)).astype(np.float32), "b")
w2 = numpy_helper.from_array(rng.uniform(-1, 1, (32, 64, 1, 1)).astype(np.float32), "w2")
nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("Conv", ["r", "w2"], ["y"])]
g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 32, 20, 20])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32, 20, 20])], [w, b, w2])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
PY
MODEL=$WORK/conv.onnx
export XDG_CACHE_HOME=$WORK/xdg
CACHE_DIR=$XDG_CACHE_HOME/onyx/tuning

"$ONYX" tune --help > "$WORK/help.txt" 2>&1
check "--help: exit 0" test $? -eq 0
check "... names --force and --threads" grep -q -- "--force" "$WORK/help.txt"
"$ONYX" --help | grep -q "^  tune "
check "listed in onyx --help" test $? -eq 0
"$ONYX" tune > /dev/null 2>&1
check "no model: exit 2" test $? -eq 2
"$ONYX" tune "$MODEL" --frobnicate > /dev/null 2>&1
check "unknown option: exit 2" test $? -eq 2
"$ONYX" tune "$MODEL" --threads abc > /dev/null 2>&1
check "bad --threads: exit 2" test $? -eq 2
"$ONYX" tune "$WORK/missing.onnx" > /dev/null 2>&1
check "missing model: exit 1" test $? -eq 1

# The 3x3 convolution has Winograd candidates (oneDNN's with AVX-512, onyx's own "owino" with AVX2 or AVX-512) where
# the blocked layout runs, which needs AVX2 + FMA.
if ! grep -q avx2 /proc/cpuinfo || ! grep -qw fma /proc/cpuinfo; then
  echo "skip the tuning checks: no AVX2 + FMA (no blocked layout, nothing to tune)"
  echo "$failures failures"
  test "$failures" -eq 0
  exit
fi

entries() {  # entries THREADS -> prints the count of well-formed entries for that thread count
  /usr/bin/python3 - "$CACHE_DIR" "$1" <<'PY'
import glob, json, sys
files = glob.glob(sys.argv[1] + "/*.json")
assert len(files) == 1, files
doc = json.load(open(files[0]))
assert doc["format"] == "onyx-tuning-1" and doc["cpu"], doc
n = 0
for key, e in doc["entries"].items():
    assert "|nchwc_conv2d_cold3 " in key, key
    assert e["choice"] in e["times_ms"], e
    n += key.endswith(" threads=" + sys.argv[2])
print(n)
PY
}

# One thread: the 3x3 convolution chooses between direct, Winograd and onyx's own direct convolution, the 1x1 between
# oneDNN's direct convolution and onyx's own (kernels/nchwc_direct_conv.h): two shapes. A run whose timing other
# processes disturbed records nothing, so on a busy machine it may take a few tries.
for attempt in 1 2 3 4 5; do
  "$ONYX" tune "$MODEL" --threads 1 > "$WORK/tune1.txt" 2>&1
  status=$?
  [ -d "$CACHE_DIR" ] && [ "$(entries 1 2>/dev/null)" = "2" ] && break
done
check "tune --threads 1: exit 0" test $status -eq 0
check "... the 3x3 measured" grep -q "^measured .*w=64x32x3x3.* threads=1" "$WORK/tune1.txt"
check "... the 1x1 measured" grep -q "^measured .*w=32x64x1x1.* threads=1" "$WORK/tune1.txt"
check "... the 3x3's choice is direct, Winograd or own direct on one thread" \
  grep -Eq "^measured +(direct|winograd|owino[24]|odirect)/t1 .*w=64x32x3x3" "$WORK/tune1.txt"
check "... the cache file holds both" test "$(entries 1)" = "2"

"$ONYX" tune "$MODEL" --threads 1 > "$WORK/again.txt" 2>&1
check "again without --force: exit 0" test $? -eq 0
check "... the shapes come from the cache" grep -q "2 shapes with a choice: 0 measured, 2 from the cache" "$WORK/again.txt"

"$ONYX" tune "$MODEL" --threads 1 --force > "$WORK/force.txt" 2>&1
check "--force: exit 0" test $? -eq 0
check "... nothing taken from the cache" grep -q " 0 from the cache" "$WORK/force.txt"

# Two threads: kept apart from the one-thread entry.
"$ONYX" tune "$MODEL" --threads 2 > "$WORK/tune2.txt" 2>&1
check "tune --threads 2: exit 0" test $? -eq 0
check "... the one-thread entries are still there" test "$(entries 1)" = "2"

# A corrupt cache file: a warning, not a failure, and the file is rewritten whole.
for f in "$CACHE_DIR"/*.json; do printf '{"format": "onyx-tuning-1", "entries": {tru' > "$f"; done
for attempt in 1 2 3 4 5; do
  "$ONYX" tune "$MODEL" --threads 1 > "$WORK/corrupt.txt" 2>&1
  status=$?
  [ "$(entries 1 2>/dev/null)" = "2" ] && break
done
check "corrupt cache: exit 0" test $status -eq 0
check "... with a warning" grep -q "warning: tuning cache .* ignored" "$WORK/corrupt.txt"
check "... and a good file again" test "$(entries 1)" = "2"

# ONYX_TUNING=off: sessions neither read nor write the cache.
export XDG_CACHE_HOME=$WORK/xdg_off
ONYX_TUNING=off "$ONYX" bench "$MODEL" --threads 1 --runs 1 --warmup 0 > /dev/null 2>&1
check "bench under ONYX_TUNING=off: no cache folder" test ! -e "$WORK/xdg_off"
ONYX_TUNING=sometimes "$ONYX" bench "$MODEL" --threads 1 --runs 1 --warmup 0 > /dev/null 2> "$WORK/badmode.txt"
check "a bad ONYX_TUNING: a warning, not a failure" grep -q "ONYX_TUNING must be off, cache or always" "$WORK/badmode.txt"

echo "$failures failures"
test "$failures" -eq 0
