#!/usr/bin/env bash
# onyx's one entry point on a fresh Debian 12 machine:
#   ./onyx.sh demo    install what is needed, build, run the demo model (face detection on a reference input)
#   ./onyx.sh test    install what is needed, build, run every test
#   ./onyx.sh sanitize  install, build with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan (-O1 -g),
#                       run the unit tests, node suites and converter tests under them (tests/sanitize/run.sh;
#                       `./onyx.sh sanitize all` runs every test)
#   ./onyx.sh fuzz [TARGET|all [SECONDS]]  install, build the libFuzzer targets with clang in build-fuzz
#                       (tests/fuzz/libfuzzer: one per reader, ASan + UBSan), fuzz TARGET (default all) for SECONDS
#                       (default 60) each; `./onyx.sh fuzz list` lists the targets
#   ./onyx.sh setup | build   the first steps alone
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(cmake ninja-build g++ ccache protobuf-compiler libprotobuf-dev libgtest-dev nlohmann-json3-dev
          pybind11-dev python3-dev python3-pytest libdnnl-dev
          libonnx-testdata python3-numpy python3-onnx libjpeg-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev
          libhdf5-dev libzip-dev python3-h5py python3-dask python3-distributed python3-pandas libhwy-dev libxbyak-dev libcpp-httplib-dev libssl-dev openssl libgraphviz-dev libsnappy-dev libgrpc++-dev protobuf-compiler-grpc python3-grpcio
          chromium chromium-driver python3-selenium)
BUILD_DIR=${ONYX_BUILD_DIR:-build}
JOBS=${ONYX_JOBS:-$(nproc)}

setup() {
  local missing=() wanted=("${PACKAGES[@]}" "$@")
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "onyx.sh: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

build() {
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DONYX_WERROR=ON
  fi
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

demo() {
  local onyx="$BUILD_DIR/bin/onyx" model=models/blazeface/model.onnx
  echo "== onyx info $model"
  "$onyx" info "$model"
  echo
  echo "== onyx run $model on the reference input"
  "$onyx" run "$model" --input "input:0=models/blazeface/test_data_set_0/input_0.pb" --output-dir "$BUILD_DIR/demo-out"
  echo "(outputs written to $BUILD_DIR/demo-out/*.npy)"
  echo
  echo "== onyx conformance models/blazeface: outputs compared with ONNX Runtime's reference outputs"
  "$onyx" conformance --atol 1e-5 models/blazeface
}

# The sanitizer build lives in its own folder (its objects are incompatible with the release build's); it builds at
# low priority so that it can run beside other work. Python stays off: the module would need libasan preloaded.
# Warnings are the release build's gate (-Werror there): GCC's flow warnings differ on instrumented -O1 code.
SANITIZE_DIR=${ONYX_SANITIZE_DIR:-build-asan}
sanitize() {
  if [ ! -f "$SANITIZE_DIR/build.ninja" ]; then
    cmake -S . -B "$SANITIZE_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" \
      -DONYX_SANITIZE=address,undefined -DONYX_BUILD_PYTHON=OFF -DONYX_WERROR=OFF
  fi
  local start
  start=$(date +%s)
  nice -n 10 cmake --build "$SANITIZE_DIR" --target onyx_cli onyx_unit_tests -j "$JOBS"
  echo "sanitize: built in $(($(date +%s) - start)) s"
  [ -n "${ONYX_SANITIZE_BUILD_ONLY:-}" ] && return 0
  tests/sanitize/run.sh "$SANITIZE_DIR" "${1:-default}"
}

# The fuzz build uses clang (libFuzzer ships with Debian's clang-14) in its own folder, at low priority.
FUZZ_DIR=${ONYX_FUZZ_DIR:-build-fuzz}
fuzz() {
  local which=${1:-all} seconds=${2:-60}
  if [ "$which" = list ]; then
    for f in tests/fuzz/libfuzzer/fuzz_*.cc; do f=$(basename "$f" .cc); echo "${f#fuzz_}"; done
    return 0
  fi
  if [ ! -f "$FUZZ_DIR/build.ninja" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$FUZZ_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" -DONYX_FUZZ=ON -DONYX_BUILD_PYTHON=OFF -DONYX_BUILD_TESTS=OFF \
      -DONYX_WERROR=OFF
  fi
  nice -n 10 cmake --build "$FUZZ_DIR" --target onyx_fuzz_targets -j "$JOBS"
  tests/fuzz/libfuzzer/run.sh "$FUZZ_DIR" "${ONYX_SHARED_DIR:-../shared}" "$which" "$seconds"
}

run_tests() {
  (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS")
}

case "${1:-}" in
  setup) setup ;;
  build) setup; build ;;
  demo) setup; build; demo ;;
  test) setup; build; run_tests ;;
  sanitize) setup; sanitize "${2:-default}" ;;
  fuzz) setup clang libclang-rt-14-dev; fuzz "${2:-all}" "${3:-60}" ;;
  *) echo "usage: ./onyx.sh demo | test | sanitize [all] | fuzz [TARGET|all|list [SECONDS]] | setup | build" >&2; exit 2 ;;
esac
