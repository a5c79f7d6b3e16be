#!/usr/bin/env bash
# Runs the test suites on an AddressSanitizer + UndefinedBehaviorSanitizer build (./onyx.sh sanitize builds it in
# build-asan with -DONYX_SANITIZE=address,undefined, -O1 -g) and fails if any sanitizer reported anything, even in a
# process whose exit status a test ignores or expects to be an error (hostile-input tests expect exit 1; the
# conformance runner forks a child per case): every report goes to a log file under the run's folder, and the run
# fails if one exists.
#
# usage: tests/sanitize/run.sh BUILD_DIR [SET]   (SET: default, all, or a ctest -R regex)
#   SET = default: the unit tests, the ONNX node suites (onnx 1.12's and the latest, plain and optimized), the real
#         models, the converter tests (TF ops, TF.js/frozen graphs, SavedModels, TFLite, the Keras corpus and .h5
#         attribute forms), the CLI's hostile-input test and the mutation fuzz test;
#         all: every ctest test of BUILD_DIR (adds the other ONNX suites, checker/inference differentials, opset
#         conversion, serve, compare, visualize: about twice as long).
set -euo pipefail
BUILD_DIR=${1:?build dir}
SET=${2:-default}
HERE=$(cd "$(dirname "$0")" && pwd)
LOGS=$(cd "$BUILD_DIR" && pwd)/sanitizer-logs
rm -rf "$LOGS"
mkdir -p "$LOGS"

# halt_on_error: the first report ends the process. allocator_may_return_null: onyx turns a failed allocation
# (a hostile model asking for terabytes) into an error through std::bad_alloc; without it ASan aborts on any
# allocation over its maximum instead. exitcode 86: a sanitizer's exit is told apart from onyx's own errors.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=86:detect_leaks=1:allocator_may_return_null=1:\
strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1:log_path=$LOGS/asan:\
suppressions=$HERE/asan.supp"
export LSAN_OPTIONS="suppressions=$HERE/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=86:print_stacktrace=1:log_path=$LOGS/ubsan:\
suppressions=$HERE/ubsan.supp"

case "$SET" in
  default)
    tests='^(unit|conformance_(onnx112|latest)_node|conformance_(onnx112|latest)_node_optimized|conformance_real_models'
    tests+='|tf_ops|tf_convert|tf_saved_model|tflite_convert|keras_convert|keras_h5_attribute_forms|cli|fuzz_mutations)$'
    ;;
  all) tests='.' ;;
  *) tests=$SET ;;  # a ctest -R regex of your own
esac

start=$(date +%s)
status=0
(cd "$BUILD_DIR" && ctest --output-on-failure --no-tests=error --timeout 3000 -j "${ONYX_JOBS:-$(nproc)}" -R "$tests") || status=$?
echo "sanitize: tests ran in $(($(date +%s) - start)) s"

reports=$(find "$LOGS" -type f | sort)
if [ -n "$reports" ]; then
  echo "sanitize: $(echo "$reports" | wc -l) sanitizer report(s):"
  for r in $reports; do
    echo "---- $r"
    head -60 "$r"
  done
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "sanitize: tests failed (no sanitizer report: see the ctest output above)"
  exit "$status"
fi
echo "sanitize: no sanitizer reports"
