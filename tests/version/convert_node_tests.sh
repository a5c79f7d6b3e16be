#!/bin/bash
# Acceptance test of `onyx convert --opset`: every onnx 1.12 node-test model converts up to opset 21 and still
# passes its test data (cases listed in tests/conformance/onnx112-node.txt as failing may stay failing); the
# shared real models convert to 21 and match their references. Prints the counts.
# usage: convert_node_tests.sh ONYX_BINARY [TARGET_OPSET]
set -u
ONYX=${1:?onyx binary}
TARGET=${2:-21}
HERE=$(cd "$(dirname "$0")" && pwd)
NODE_DIR=/usr/share/libonnx-testdata/data/node
KNOWN=$HERE/../conformance/onnx112-node.txt
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

converted=0; convert_failed=0; passing=0; failing=0; known_failing=0; regressions=0
for case_dir in "$NODE_DIR"/*/; do
  name=$(basename "$case_dir")
  mkdir -p "$WORK/node/$name"
  cp -r "$case_dir"/test_data_set_* "$WORK/node/$name/"
  if ! out=$("$ONYX" convert "$case_dir/model.onnx" -o "$WORK/node/$name/model.onnx" --opset "$TARGET" --quiet 2>&1); then
    convert_failed=$((convert_failed + 1))
    echo "CONVERT-FAIL $name: $out"
    rm -rf "$WORK/node/$name"
    continue
  fi
  converted=$((converted + 1))
done
"$ONYX" conformance "$WORK/node" > "$WORK/node.txt" 2>&1
while read -r status name rest; do
  case "$status" in
    PASS) passing=$((passing + 1)) ;;
    FAIL)
      failing=$((failing + 1))
      if grep -q "^$name\b.*FAIL" "$KNOWN" 2>/dev/null || grep -q "^FAIL $name\b" "$KNOWN" 2>/dev/null; then
        known_failing=$((known_failing + 1))
      else
        regressions=$((regressions + 1))
        echo "REGRESSION $name $rest"
      fi ;;
  esac
done < <(grep -E "^(PASS|FAIL) " "$WORK/node.txt")
echo "node tests: converted $converted, not converted $convert_failed, passing $passing, failing $failing" \
     "(known failures $known_failing, new $regressions)"

models_ok=0; models_bad=0
for model in /work/shared/models/onnx/*.onnx; do
  [ -f "$model" ] || continue
  name=$(basename "$model" .onnx)
  data=/work/shared/models/onnx/testdata/$name
  [ -d "$data" ] || continue
  mkdir -p "$WORK/models/$name"
  cp -r "$data"/test_data_set_* "$WORK/models/$name/" 2>/dev/null
  if ! out=$("$ONYX" convert "$model" -o "$WORK/models/$name/model.onnx" --opset "$TARGET" --quiet 2>&1); then
    echo "MODEL CONVERT-FAIL $name: $out"; models_bad=$((models_bad + 1)); continue
  fi
  if "$ONYX" conformance --atol 1e-5 "$WORK/models/$name" > "$WORK/m.txt" 2>&1 && ! grep -q "^FAIL" "$WORK/m.txt"; then
    models_ok=$((models_ok + 1))
  else
    echo "MODEL FAIL $name: $(grep -E '^FAIL' "$WORK/m.txt" | head -3)"; models_bad=$((models_bad + 1))
  fi
done
echo "real models: $models_ok match, $models_bad do not"
[ "$convert_failed" -eq 0 ] && [ "$regressions" -eq 0 ] && [ "$models_bad" -eq 0 ]
