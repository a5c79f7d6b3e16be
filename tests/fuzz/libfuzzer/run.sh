#!/usr/bin/env bash
# Runs libFuzzer targets built in BUILD_DIR/fuzz (./onyx.sh fuzz builds them): seeds the corpus once from the
# project's and ../shared's files (seed_corpus.py), then fuzzes with ASan + UBSan for SECONDS per target. A crash,
# leak or timeout (> 10 s for one input) writes the input to BUILD_DIR/fuzz-artifacts/TARGET/ and fails.
# usage: run.sh BUILD_DIR SHARED_DIR TARGET|all [SECONDS]
#   ONYX_FUZZ_FLAGS: more libFuzzer flags, e.g. ONYX_FUZZ_FLAGS=-runs=1000000 (stop after a million executions, or
#   at SECONDS, whichever comes first).
set -uo pipefail
build=$1 shared=$2 which=$3 seconds=${4:-60}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
targets=()
if [ "$which" = all ]; then
  for f in "$here"/fuzz_*.cc; do n=$(basename "$f" .cc); targets+=("${n#fuzz_}"); done
else
  targets=("$which")
fi
export ONYX_MAX_FILE_BYTES=$((64 << 20))    # keep one input's allocations well under the RSS limit
export ONYX_MAX_HDF5_READ_SECONDS=5         # a looping libhdf5 child is killed well within the 10 s timeout
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0
for t in "${targets[@]}"; do
  bin="$build/fuzz/fuzz_$t"
  [ -x "$bin" ] || { echo "run.sh: $bin not built" >&2; failed=1; continue; }
  corpus="$build/fuzz-corpus/$t"
  artifacts="$build/fuzz-artifacts/$t"
  mkdir -p "$artifacts"
  if [ ! -d "$corpus" ]; then /usr/bin/python3 "$here/seed_corpus.py" "$t" "$corpus" "$repo" "$shared" || exit 1; fi
  dict=()
  [ -f "$here/dict/$t.dict" ] && dict=(-dict="$here/dict/$t.dict")
  log="$build/fuzz-artifacts/$t.log"
  echo "== fuzz_$t for ${seconds}s"
  # The Keras readers fork a child for libhdf5 only in a single-threaded process (src/convert/keras/isolated_read.h);
  # libFuzzer's RSS-limit thread would make it read in process, so those targets bound memory by malloc instead.
  limits=(-rss_limit_mb=4096)
  case "$t" in convert_keras_*) limits=(-rss_limit_mb=0 -malloc_limit_mb=4096) ;; esac
  read -r -a extra <<<"${ONYX_FUZZ_FLAGS:-}"
  "$bin" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=10 "${limits[@]}" -max_len=1048576 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 "${extra[@]}" >"$log" 2>&1
  rc=$?
  grep -E "^#[0-9]+ +(DONE|INITED)|stat::number_of_executed_units|stat::peak_rss_mb|cov:" "$log" | tail -3
  if [ $rc -ne 0 ]; then
    echo "fuzz_$t FAILED (rc $rc): see $log and $artifacts" >&2
    grep -m5 -E "ERROR|SUMMARY|runtime error" "$log" >&2
    failed=1
  fi
done
exit $failed
