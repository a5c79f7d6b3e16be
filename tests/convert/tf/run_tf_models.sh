#!/bin/bash
# The TensorFlow converter on the real models of ../shared/models: every TF.js graph-model (and frozen GraphDef)
# with reference data is converted, checked (`onyx check --full`) and run against TF.js's outputs with
# `onyx conformance` (rtol 1e-4, atol 1e-5). Also an unsupported operator and a corrupt file give clear errors.
# usage: run_tf_models.sh ONYX_BINARY SHARED_DIR
set -u
ONYX=${1:?onyx binary}
SHARED=${2:?shared dir}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
cases=0
convert_case() {  # convert_case NAME MODEL_FILE TESTDATA_DIR
  local name=$1 model=$2 data=$3
  [ -f "$model" ] && [ -d "$data/test_data_set_0" ] || { echo "skip $name (not in $SHARED)"; return; }
  cases=$((cases + 1))
  mkdir -p "$WORK/cases/$name"
  if ! "$ONYX" convert "$model" -o "$WORK/cases/$name/model.onnx"; then
    echo "FAIL $name: conversion failed"; failures=$((failures + 1)); return
  fi
  if ! "$ONYX" check --full "$WORK/cases/$name/model.onnx" > "$WORK/check.txt" 2>&1; then
    echo "FAIL $name: onyx check --full"; cat "$WORK/check.txt"; failures=$((failures + 1)); return
  fi
  cp -r "$data/test_data_set_0" "$WORK/cases/$name/"
}
for dir in "$SHARED"/models/tfjs/graph/*/; do
  name=$(basename "$dir")
  model=$(ls "$dir"*.json 2>/dev/null | head -1)
  convert_case "$name" "$model" "$SHARED/models/tfjs/testdata/$name"
done
for pb in "$SHARED"/models/tf/*.pb; do
  [ -f "$pb" ] || continue
  name=$(basename "$pb" .pb)
  [ -f "$SHARED/models/tf/testdata/$name/test_data_set_0/output_0.pb" ] || { echo "skip $name (no reference outputs)"; continue; }
  convert_case "$name" "$pb" "$SHARED/models/tf/testdata/$name"
done
if [ -d "$WORK/cases" ]; then
  "$ONYX" conformance --rtol 1e-4 --atol 1e-5 "$WORK/cases" || failures=$((failures + 1))
fi

# An operator without a converter is named; a corrupt model.json is a one-line error, exit 1.
mkdir -p "$WORK/bad"
cat > "$WORK/bad/model.json" <<'JSON'
{"format": "graph-model", "modelTopology": {"node": [
  {"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}, "shape": {"shape": {"dim": [{"size": "2"}]}}}},
  {"name": "y", "op": "Erfinv", "input": ["x"]},
  {"name": "z", "op": "Lgamma", "input": ["y"]},
  {"name": "Identity", "op": "Identity", "input": ["z"]}]}, "weightsManifest": []}
JSON
"$ONYX" convert "$WORK/bad/model.json" -o "$WORK/bad/out.onnx" > "$WORK/bad.txt" 2>&1
code=$?
if [ $code -ne 3 ] || ! grep -q "Erfinv, Lgamma" "$WORK/bad.txt"; then
  echo "FAIL unsupported operators: exit $code, $(cat "$WORK/bad.txt")"; failures=$((failures + 1))
else
  echo "ok   unsupported operators are listed together (exit 3)"
fi
printf '{"format": "graph-model", "modelTopology": {"node": [' > "$WORK/bad/model.json"
"$ONYX" convert "$WORK/bad/model.json" -o "$WORK/bad/out.onnx" > "$WORK/bad.txt" 2>&1
code=$?
if [ $code -ne 1 ] || [ "$(wc -l < "$WORK/bad.txt")" -ne 1 ]; then
  echo "FAIL truncated model.json: exit $code, $(cat "$WORK/bad.txt")"; failures=$((failures + 1))
else
  echo "ok   truncated model.json: $(cat "$WORK/bad.txt")"
fi
echo "$cases real models, $failures failures"
[ $failures -eq 0 ]
