#!/usr/bin/env bash
# onyx visualize on real models: DOT on stdout and in files, valid SVG/PNG/PDF, edge shapes, control flow, and the
# exit codes of bad input (1: the model, 2: the command line). Usage: visualize_test.sh ONYX [SHARED_DIR]
set -euo pipefail
ONYX=$1
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SHARED=${2:-$ROOT/../shared}
MODEL=$ROOT/models/blazeface/model.onnx
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}

# run_rc CMD...: runs CMD with a time limit, stdout/stderr into $TMP/out and $TMP/err; sets rc.
run_rc() {
  rc=0
  timeout 300 "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
}

expect_rc() {
  local name=$1 want=$2
  shift 2
  run_rc "$@"
  if [ "$rc" -ne "$want" ]; then
    bad "$name: exit $rc, expected $want"
    cat "$TMP/err"
    return 1
  fi
  ok
}

# expect_error NAME RC PATTERN CMD...: exit RC, stderr one line matching PATTERN.
expect_error() {
  local name=$1 want=$2 pattern=$3
  shift 3
  expect_rc "$name" "$want" "$@" || return 0
  if ! grep -qE "$pattern" "$TMP/err"; then bad "$name: stderr does not match '$pattern'"; cat "$TMP/err"; fi
  if [ "$(wc -l <"$TMP/err")" -ne 1 ]; then bad "$name: error is not one line"; cat "$TMP/err"; fi
}

is_svg() { head -c 200 "$1" | grep -q '^<?xml' && grep -q '<svg' "$1" && tail -c 20 "$1" | grep -q '</svg>'; }
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; }
is_pdf() { [ "$(head -c 5 "$1")" = "%PDF-" ]; }
count() { grep -c -- "$1" "$2" || true; }

# --help, and the verb in onyx's list.
expect_rc "--help" 0 "$ONYX" visualize --help && grep -q "usage: onyx visualize MODEL" "$TMP/out" || bad "--help text"
expect_rc "onyx --help" 0 "$ONYX" --help && grep -q "visualize" "$TMP/out" || bad "visualize missing from onyx --help"

# DOT on stdout: a digraph with one box per node (blazeface: 100+ nodes) and inputs/outputs as ellipses.
if expect_rc "dot stdout" 0 "$ONYX" visualize "$MODEL"; then
  head -1 "$TMP/out" | grep -q '^digraph onyx {$' || bad "stdout is not DOT"
  boxes=$(grep -cE '^ +n[0-9]+ \[label=<<B>' "$TMP/out" || true)
  [ "$boxes" -ge 100 ] && ok || bad "dot stdout: $boxes node boxes"
  grep -qE 'shape=ellipse.*<B>input:0</B>.*float\[1,128,128,3\]' "$TMP/out" && ok || bad "input ellipse with its type"
  grep -q '<B>Conv</B>' "$TMP/out" && grep -q 'W⟨' "$TMP/out" && ok || bad "Conv boxes with folded weights"
  [ "$(count ' -> ' "$TMP/out")" -ge "$boxes" ] && ok || bad "too few edges"
  cp "$TMP/out" "$TMP/plain.dot"
fi

# Files by extension.
expect_rc "-o .dot" 0 "$ONYX" visualize "$MODEL" -o "$TMP/m.dot" && cmp -s "$TMP/m.dot" "$TMP/plain.dot" && ok ||
  bad ".dot file differs from stdout"
expect_rc "-o .svg" 0 "$ONYX" visualize "$MODEL" -o "$TMP/m.svg" && is_svg "$TMP/m.svg" && ok || bad "m.svg is not SVG"
[ "$(count 'class="node"' "$TMP/m.svg")" -ge 100 ] && ok || bad "m.svg holds too few nodes"
expect_rc "-o .PNG" 0 "$ONYX" visualize "$MODEL" -o "$TMP/m.PNG" --rankdir LR && is_png "$TMP/m.PNG" && ok ||
  bad "m.PNG is not PNG"
expect_rc "-o .pdf" 0 "$ONYX" visualize "$MODEL" -o "$TMP/m.pdf" --no-initializers && is_pdf "$TMP/m.pdf" && ok ||
  bad "m.pdf is not PDF"

# --shapes labels edges; --no-initializers drops the weights; --rankdir LR.
if expect_rc "--shapes" 0 "$ONYX" visualize "$MODEL" --shapes; then
  [ "$(count 'label=" float\[1,' "$TMP/out")" -ge 100 ] && ok || bad "--shapes: too few labelled edges"
fi
expect_rc "--no-initializers" 0 "$ONYX" visualize "$MODEL" --no-initializers --rankdir LR &&
  ! grep -q '⟨' "$TMP/out" && grep -q 'rankdir=LR' "$TMP/out" && ok || bad "--no-initializers/--rankdir LR"

# Bad input.
expect_error "missing model" 1 "no_such\.onnx" "$ONYX" visualize "$TMP/no_such.onnx" -o "$TMP/x.svg"
echo "this is not a model" >"$TMP/text.onnx"
expect_error "corrupt model" 1 "text\.onnx" "$ONYX" visualize "$TMP/text.onnx"
head -c 5000 "$MODEL" >"$TMP/truncated.onnx"
expect_error "truncated model" 1 "truncated\.onnx" "$ONYX" visualize "$TMP/truncated.onnx" -o "$TMP/t.svg"
expect_error "unknown option" 2 "unknown option '--frobnicate'" "$ONYX" visualize "$MODEL" --frobnicate
expect_error "unknown extension" 2 "\.jpg.*\.dot.*\.svg" "$ONYX" visualize "$MODEL" -o "$TMP/m.jpg"
expect_error "no extension" 2 "extension" "$ONYX" visualize "$MODEL" -o "$TMP/m"
expect_error "bad rankdir" 2 "rankdir" "$ONYX" visualize "$MODEL" --rankdir XY
expect_error "-o without value" 2 "needs a value" "$ONYX" visualize "$MODEL" -o
expect_rc "no model" 2 "$ONYX" visualize || true
expect_error "unwritable output" 1 "no_such_dir" "$ONYX" visualize "$MODEL" -o "$TMP/no_such_dir/m.svg"
[ -e "$TMP/x.svg" ] && bad "a failed run left x.svg" || ok

# A graph above --max-nodes: the DOT is written beside OUT instead, exit 3.
expect_error "--max-nodes" 3 "wrote .*big\.dot" "$ONYX" visualize "$MODEL" -o "$TMP/big.svg" --max-nodes 10
[ -s "$TMP/big.dot" ] && [ ! -e "$TMP/big.svg" ] && ok || bad "--max-nodes: big.dot missing or big.svg written"

# The shared real models when present (CI keeps ../shared beside the clone): every one to SVG with shapes.
if [ -d "$SHARED/models/onnx" ]; then
  for m in "$SHARED"/models/onnx/*.onnx; do
    name=$(basename "$m" .onnx)
    if expect_rc "$name" 0 "$ONYX" visualize "$m" --shapes -o "$TMP/$name.svg"; then
      is_svg "$TMP/$name.svg" && ok || bad "$name.svg is not SVG"
    fi
  done
  # silero_vad_v4_legacy holds If nodes: their branches are clusters with nodes of their own.
  if [ -f "$SHARED/models/onnx/silero_vad_v4_legacy.onnx" ]; then
    expect_rc "silero dot" 0 "$ONYX" visualize "$SHARED/models/onnx/silero_vad_v4_legacy.onnx" || true
    grep -q '<I>then_branch</I>' "$TMP/out" && grep -q '<I>else_branch</I>' "$TMP/out" && ok ||
      bad "silero: no If branch clusters"
  fi
  # PP-OCR's classifier (471 nodes, 250 of them Constants): readable at 100%, one vertical chain. Constants are drawn
  # inside their consumers' boxes, so the PNG stays within 2,000 px of width (it was 4,481 with a box per Constant).
  pp="$SHARED/models/onnx/ch_ppocr_mobile_v2.0_cls_infer.onnx"
  if [ -f "$pp" ]; then
    expect_rc "ppocr png" 0 "$ONYX" visualize "$pp" -o "$TMP/pp.png" || true
    width=$(/usr/bin/python3 -c "import struct,sys; print(struct.unpack('>I', open(sys.argv[1],'rb').read(24)[16:20])[0])" "$TMP/pp.png" 2>/dev/null || echo 0)
    [ "$width" -gt 0 ] && [ "$width" -le 2000 ] && ok || bad "ppocr PNG is $width px wide (at most 2000)"
    expect_rc "ppocr dot" 0 "$ONYX" visualize "$pp" || true
    ! grep -q '<B>Constant</B>' "$TMP/out" && ok || bad "ppocr: Constant nodes drawn as boxes of their own"
  fi
else
  echo "note: $SHARED/models/onnx not found, shared models skipped"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
