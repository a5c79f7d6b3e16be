#!/bin/bash
# `onyx compare` on the face detector that ships in models/: the model against itself unoptimized vs optimized,
# against its reference data, and against a copy with one convolution's weights changed, where --per-node must
# name that convolution as the first value out of tolerance. Also the command-line errors.
# usage: compare_test.sh ONYX_BINARY
set -u
ONYX=${1:?onyx binary}
HERE=$(cd "$(dirname "$0")" && pwd)
MODEL=$HERE/../../models/blazeface/model.onnx
DATA=$HERE/../../models/blazeface/test_data_set_0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
check() {  # check DESCRIPTION CONDITION...
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}

# The detector's box outputs reach |137| (one float ulp there is 1.5e-5); entries near zero come from cancelling terms
# of that size and carry their rounding, which differs between the unoptimized and the fused, blocked kernels by a
# few of those ulps (4.6e-5 seen on one CI machine). atol 1e-4 (~7 ulps at the outputs' scale) is the summation-order
# bound here; the default 1e-5 is below one ulp of the outputs' largest values.
SUM_ORDER_ATOL=1e-4
"$ONYX" compare "$MODEL" --atol $SUM_ORDER_ATOL > "$WORK/opt.txt" 2>&1
check "unoptimized vs optimized: exit 0" test $? -eq 0
check "... reports each output" grep -q "^Identity_3:0" "$WORK/opt.txt"
check "... within tolerance" grep -q "outputs within tolerance" "$WORK/opt.txt"

"$ONYX" compare "$MODEL" --reference "$DATA" > "$WORK/ref.txt" 2>&1
check "against the reference data: exit 0" test $? -eq 0
# ONNX Runtime's summation order on both sides: the reference still holds; a value that is not on/off is a usage error.
"$ONYX" compare "$MODEL" --reference "$DATA" --ort-order on --opt-level-b disabled > "$WORK/ref_ort.txt" 2>&1
check "--ort-order on against the reference data: exit 0" test $? -eq 0
"$ONYX" compare "$MODEL" --ort-order sometimes > /dev/null 2>&1
check "--ort-order sometimes: exit 2" test $? -eq 2

# A copy whose third Conv has its weights scaled by 1.5: the outputs differ, and per node the first difference is
# that Conv's output.
/usr/bin/python3 - "$MODEL" "$WORK/altered.onnx" "$WORK/altered_node.txt" <<'PY'
import sys
import onnx
from onnx import numpy_helper
m = onnx.load(sys.argv[1])
convs = [n for n in m.graph.node if n.op_type == "Conv"]
target = convs[2]
for i, init in enumerate(m.graph.initializer):
    if init.name == target.input[1]:
        w = numpy_helper.to_array(init) * 1.5
        m.graph.initializer[i].CopyFrom(numpy_helper.from_array(w.astype(w.dtype), init.name))
onnx.save(m, sys.argv[2])
open(sys.argv[3], "w").write(target.output[0])
PY
ALTERED_OUT=$(cat "$WORK/altered_node.txt")
"$ONYX" compare "$MODEL" "$WORK/altered.onnx" --per-node --json "$WORK/report.json" > "$WORK/alt.txt" 2>&1
check "altered copy: exit 1" test $? -eq 1
check "... says the outputs differ" grep -q "OUTPUTS DIFFER" "$WORK/alt.txt"
check "... names the altered Conv's output first ($ALTERED_OUT)" \
  grep -qF "first out of tolerance, in A's order: '$ALTERED_OUT'" "$WORK/alt.txt"
check "... JSON report agrees" /usr/bin/python3 -c "
import json, sys
r = json.load(open('$WORK/report.json'))
assert r['within_tolerance'] is False
assert r['first_out_of_tolerance']['value'] == '$ALTERED_OUT', r['first_out_of_tolerance']
assert any(not o['within_tolerance'] for o in r['outputs'])
assert all(n['within_tolerance'] for n in r['nodes'][:3] if n['comparable'])
"
"$ONYX" compare "$MODEL" "$MODEL" --opt-level-a disabled --opt-level-b all --per-node --atol $SUM_ORDER_ATOL \
  > "$WORK/same.txt" 2>&1
check "the same model twice with --per-node: exit 0" test $? -eq 0
check "... every shared value within tolerance" grep -q "every shared value is within tolerance" "$WORK/same.txt"

"$ONYX" compare "$MODEL" --bogus > /dev/null 2>&1
check "unknown option: exit 2" test $? -eq 2
"$ONYX" compare "$MODEL" --input nosuch=x.npy > /dev/null 2>&1
check "an input the model does not have: exit 2" test $? -eq 2
"$ONYX" compare /nonexistent.onnx > /dev/null 2>&1
check "missing model: exit 1" test $? -eq 1
"$ONYX" compare "$MODEL" --reference "$WORK" > /dev/null 2>&1
check "reference folder without data: exit 1" test $? -eq 1

echo "$failures failed"
[ "$failures" -eq 0 ]
