#!/usr/bin/env bash
# Embedding onyx end to end (docs/c-api.md, docs/cpp-api.md): install the build into a temporary prefix, then
#  - the installed tree: headers, libonyx.so (SONAME, only onyx_* exported, every declared C function present),
#    the static libraries, the CLI, the CMake package, onyx.pc, the Python module under the prefix;
#  - build examples/classify (C) and examples/embed (C++) out of tree with find_package(onyx) and again with nothing
#    but `pkg-config --cflags --libs onyx`, run them on ../shared's ch_ppocr classifier and compare with ONNX
#    Runtime's reference output (../shared/models/onnx/testdata), embed with 4 threads sharing one Session;
#  - tests/embed/cpp_api_test.cpp: the rest of the C++ API, and 4 threads running one Session at once;
#  - examples/embed linked with the static library (onyx-static.pc): the public and internal C++ classes coexist;
#  - tests/embed/api_errors.c compiled as C99 (-Wall -Wextra -Werror -pedantic): every error path.
#
#   embed_test.sh BUILD_DIR SOURCE_DIR SHARED_DIR [--deb]
# --deb also runs `cpack -G DEB` in BUILD_DIR and checks the package's files and Depends.
set -euo pipefail

BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
SHARED=$(cd "$3" && pwd)
WANT_DEB=${4:-}
PY=/usr/bin/python3
MODEL=$SHARED/models/onnx/ch_ppocr_mobile_v2.0_cls_infer.onnx
REFS=$SHARED/models/onnx/testdata/ch_ppocr_mobile_v2.0_cls_infer/test_data_set_0

TMP=$(mktemp -d /tmp/onyx-embed-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
ok() { echo "ok: $*"; }

echo "== cmake --install into $PREFIX"
cmake --install "$BUILD" --prefix "$PREFIX" >"$TMP/install.log"
for f in include/onyx/onyx_c_api.h include/onyx/onyx.hpp lib/libonyx.so lib/libonyx.a lib/libonyx_proto.a \
         bin/onyx lib/cmake/onyx/onyxConfig.cmake lib/cmake/onyx/onyxConfigVersion.cmake \
         lib/cmake/onyx/onyxTargets.cmake lib/pkgconfig/onyx.pc lib/pkgconfig/onyx-static.pc; do
  [ -e "$PREFIX/$f" ] && ok "installed $f" || fail "$f not installed"
done
SONAME=$(readelf -d "$PREFIX/lib/libonyx.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[[ "$SONAME" =~ ^libonyx\.so\.[0-9]+$ ]] && [ -e "$PREFIX/lib/$SONAME" ] && ok "SONAME $SONAME" || fail "SONAME '$SONAME'"
PYMOD=$(ls -d "$PREFIX"/lib/python3*/site-packages/onyx 2>/dev/null | head -1)
if [ -n "$PYMOD" ] && ls "$PYMOD"/_onyx*.so >/dev/null 2>&1; then
  ok "Python module under the prefix: ${PYMOD#"$PREFIX"/}"
  PYTHONPATH=$(dirname "$PYMOD") $PY -c "import onyx, sys; s = onyx.InferenceSession(sys.argv[1]); assert s.get_inputs()[0].name == 'x'" "$MODEL" \
    && ok "the installed Python module imports and loads a model" || fail "the installed Python module does not work"
else
  fail "no Python module under $PREFIX/lib/python3*/site-packages"
fi

echo "== exported symbols"
nm -D --defined-only "$PREFIX/lib/libonyx.so" | awk '$2 != "A" {sub(/@.*/, "", $3); print $3}' | sort >"$TMP/exported"
grep -v '^onyx_' "$TMP/exported" >"$TMP/foreign" || true
[ ! -s "$TMP/foreign" ] && ok "only onyx_* symbols exported ($(wc -l <"$TMP/exported"))" \
  || fail "symbols other than onyx_* exported: $(head -5 "$TMP/foreign" | tr '\n' ' ')"
grep -oE '\bonyx_[a-z0-9_]+\(' "$PREFIX/include/onyx/onyx_c_api.h" | tr -d '(' | sort -u >"$TMP/declared"
if diff "$TMP/declared" "$TMP/exported" >"$TMP/symdiff"; then
  ok "every declared C function is exported, nothing else"
else
  fail "declared vs exported functions differ:"; cat "$TMP/symdiff"
fi

echo "== reference input and output (ONNX Runtime's, from $REFS)"
$PY - "$REFS" "$TMP" <<'EOF'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
refs, tmp = sys.argv[1], sys.argv[2]
np.save(tmp + "/input.npy", numpy_helper.to_array(onnx.load_tensor(refs + "/input_0.pb")).astype(np.float32))
np.save(tmp + "/expected.npy", numpy_helper.to_array(onnx.load_tensor(refs + "/output_0.pb")))
EOF

# Compares `classify` (rank index score lines) or `embed` (value index element lines) output with the reference.
compare() {
  $PY - "$1" "$2" "$TMP/expected.npy" <<'EOF'
import sys
import numpy as np
kind, out_file, expected_file = sys.argv[1], sys.argv[2], sys.argv[3]
expected = np.load(expected_file).reshape(-1)
lines = [l.split() for l in open(out_file) if l.strip()]
if kind == "classify":
    got = [(int(l[1]), float(l[2])) for l in lines]
    order = list(np.argsort(-expected, kind="stable")[:5])
    assert [i for i, _ in got] == order, f"classes {[i for i, _ in got]} != reference {order}"
    values = np.array([s for _, s in got])
    np.testing.assert_allclose(values, expected[order], rtol=1e-4, atol=1e-5)
else:
    values = np.array([float(l[2]) for l in lines if l[0] == "value"])
    assert values.shape == expected.shape, f"{values.shape} values, reference has {expected.shape}"
    np.testing.assert_allclose(values, expected, rtol=1e-4, atol=1e-5)
    assert any(l[0] == "threads" and "equal" in l for l in lines), "no 'all results equal' line"
EOF
}

run_examples() {  # $1: label, $2: classify binary, $3: embed binary
  if "$2" "$MODEL" "$TMP/input.npy" >"$TMP/classify.out" 2>"$TMP/classify.err" &&
     compare classify "$TMP/classify.out"; then
    ok "$1 classify matches ONNX Runtime: $(tr '\n' ' ' <"$TMP/classify.out")"
  else
    fail "$1 classify"; cat "$TMP/classify.out" "$TMP/classify.err"
  fi
  if "$3" "$MODEL" "$TMP/input.npy" 4 3 >"$TMP/embed.out" 2>"$TMP/embed.err" && compare embed "$TMP/embed.out"; then
    ok "$1 embed (4 threads, one Session) matches ONNX Runtime"
  else
    fail "$1 embed"; cat "$TMP/embed.out" "$TMP/embed.err"
  fi
}

echo "== examples with find_package(onyx CONFIG REQUIRED)"
for ex in classify embed; do
  if cmake -S "$SRC/examples/$ex" -B "$TMP/build-$ex" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" >"$TMP/$ex.cmake.log" 2>&1 &&
     cmake --build "$TMP/build-$ex" >>"$TMP/$ex.cmake.log" 2>&1; then
    ok "examples/$ex configured and built"
  else
    fail "examples/$ex did not build"; tail -30 "$TMP/$ex.cmake.log"
  fi
done
run_examples find_package "$TMP/build-classify/classify" "$TMP/build-embed/embed"

echo "== examples with pkg-config only"
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
FLAGS=$(pkg-config --cflags --libs onyx)
RPATH="-Wl,-rpath,$(pkg-config --variable=libdir onyx)"
mkdir -p "$TMP/pc"
gcc -std=c99 -Wall -Wextra -Werror "$SRC/examples/classify/classify.c" $FLAGS $RPATH -o "$TMP/pc/classify" \
  && ok "classify.c built with pkg-config ($FLAGS)" || fail "classify.c with pkg-config"
g++ -std=c++17 -Wall -Wextra -Werror "$SRC/examples/embed/embed.cpp" $FLAGS $RPATH -pthread -o "$TMP/pc/embed" \
  && ok "embed.cpp built with pkg-config" || fail "embed.cpp with pkg-config"
run_examples pkg-config "$TMP/pc/classify" "$TMP/pc/embed"

echo "== the C++ API: models, conversion, RunInto, profiles, errors, 4 threads on one Session"
if g++ -std=c++17 -Wall -Wextra -Werror "$SRC/tests/embed/cpp_api_test.cpp" $FLAGS $RPATH -pthread -o "$TMP/cpp_api_test"; then
  mkdir -p "$TMP/work"
  if "$TMP/cpp_api_test" "$SRC/tests/embed/data" "$MODEL" "$SHARED/models/tflite/face_detection_short_range.tflite" \
       "$TMP/work" >"$TMP/cpp_api_test.out" 2>&1; then
    ok "cpp_api_test: $(grep -c '^ok' "$TMP/cpp_api_test.out") checks passed"
  else
    fail "cpp_api_test"; grep -v '^ok' "$TMP/cpp_api_test.out" | tail -20
  fi
else
  fail "cpp_api_test.cpp does not build"
fi

echo "== embed.cpp linked with the static library (pkg-config onyx-static)"
# The C++ API's classes live in onyx::api_v1: linked together with libonyx.a's internal onyx::Session, onyx::Tensor...
# nothing may clash (a clash of inline functions would go unnoticed by the linker and break at run time).
if g++ -std=c++17 -Wall -Wextra -Werror "$SRC/examples/embed/embed.cpp" $(pkg-config --cflags --libs onyx-static) \
     -o "$TMP/pc/embed_static"; then
  ldd "$TMP/pc/embed_static" | grep -q libonyx && fail "embed_static links libonyx.so" || ok "embed_static built"
  if "$TMP/pc/embed_static" "$MODEL" "$TMP/input.npy" 4 3 >"$TMP/embed.out" 2>"$TMP/embed.err" &&
     compare embed "$TMP/embed.out"; then
    ok "static embed (4 threads, one Session) matches ONNX Runtime"
  else
    fail "static embed"; cat "$TMP/embed.out" "$TMP/embed.err"
  fi
else
  fail "embed.cpp does not link with onyx-static"
fi

echo "== every error path, from C99"
if gcc -std=c99 -Wall -Wextra -Werror -pedantic "$SRC/tests/embed/api_errors.c" $FLAGS $RPATH -o "$TMP/api_errors"; then
  if "$TMP/api_errors" "$SRC/tests/embed/data" "$MODEL" >"$TMP/api_errors.out" 2>&1; then
    ok "api_errors: $(tail -1 "$TMP/api_errors.out")"
  else
    fail "api_errors (exit $?)"; grep -v '^ok' "$TMP/api_errors.out" | tail -40
  fi
else
  fail "api_errors.c does not compile as C99"
fi

if [ "$WANT_DEB" = "--deb" ]; then
  echo "== cpack -G DEB"
  (cd "$BUILD" && cpack -G DEB >"$TMP/cpack.log" 2>&1) || { fail "cpack"; tail -20 "$TMP/cpack.log"; }
  DEB=$(ls -t "$BUILD"/onyx_*_amd64.deb 2>/dev/null | head -1)
  if [ -n "$DEB" ]; then
    ok "package $(basename "$DEB")"
    dpkg-deb -c "$DEB" | awk '{print $6}' >"$TMP/deb.files"
    for f in ./usr/lib/libonyx.so ./usr/include/onyx/onyx.hpp ./usr/bin/onyx ./usr/lib/cmake/onyx/onyxConfig.cmake \
             ./usr/lib/pkgconfig/onyx.pc ./usr/lib/python3/dist-packages/onyx/__init__.py; do
      grep -qxF "$f" "$TMP/deb.files" && ok "deb holds $f" || fail "deb lacks $f"
    done
    DEPENDS=$(dpkg-deb -f "$DEB" Depends)
    for p in libdnnl libprotobuf libgomp python3-numpy; do
      [[ "$DEPENDS" == *"$p"* ]] && ok "Depends names $p" || fail "Depends lacks $p: $DEPENDS"
    done
  else
    fail "no onyx_*_amd64.deb in $BUILD"
  fi
fi

if [ "$failures" -ne 0 ]; then
  echo "embed_test: $failures failure(s)"
  exit 1
fi
echo "embed_test: all passed"
