#!/usr/bin/env bash
# Converting a model far past 2 GiB: peak RSS and time of `onyx convert --opset` against copying its weight files.
# Builds a model of COUNT x 573 MB sparse weight files (tests/large/large_model_test.py's builder; COUNT=11: 6.3 GB),
# converts it, checks the outputs, and times `cat` of the weights. usage: bench/large_model.sh ONYX [COUNT] [DIR]
set -euo pipefail
onyx=$1 count=${2:-11} dir=${3:-$(mktemp -d /tmp/onyx_large_bench_XXXX)}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir/src"
/usr/bin/python3 -c "import sys; sys.path.insert(0, '$here/tests/large'); import large_model_test as t; t.COUNT = $count; t.build('$dir/src')"
echo "model: $(du -sh --apparent-size "$dir/src" | cut -f1) of weights in $count files"
/usr/bin/time -f "onyx convert --opset 19: %e s, peak RSS %M KB" "$onyx" convert "$dir/src/model.onnx" -o "$dir/c.onnx" --opset 19 --quiet
/usr/bin/time -f "cat of the weight files: %e s" sh -c "cat '$dir'/src/weight_* > '$dir/cat_all'"
"$onyx" run "$dir/src/model.onnx" --input "idx=$dir/idx.npy" --output-dir "$dir/o0" >/dev/null
"$onyx" run "$dir/c.onnx" --input "idx=$dir/idx.npy" --output-dir "$dir/o1" >/dev/null
cmp "$dir/o0/y.npy" "$dir/o1/y.npy" && echo "outputs equal"
rm -rf "$dir"
