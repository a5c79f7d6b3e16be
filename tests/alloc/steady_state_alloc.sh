#!/bin/bash
# Heap allocations per run in steady state for the four exported benchmark models (issue 18): `onyx bench --into`
# under the malloc-counting hook (alloc_counter.c, built here), default optimization level, 1 and 2 threads.
# Prints each count; fails when one exceeds its ceiling below (the counts measured when the runtime's own
# allocations went to zero, plus margin: what is left comes from kernels, mostly oneDNN's primitive execution).
# Skipped (77) without ~/.cache/onyx-bench/models or a C compiler.
# usage: steady_state_alloc.sh ONYX_BINARY SOURCE_DIR
set -u
onyx="$1"
src="$2"
models="${ONYX_BENCH_MODELS:-$HOME/.cache/onyx-bench/models}"
[ -f "$models/squeezenet1_1.onnx" ] || { echo "no benchmark models in $models: skipped"; exit 77; }
cc="$(command -v cc || command -v gcc)" || { echo "no C compiler: skipped"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$cc" -O2 -shared -fPIC -o "$tmp/liballoc_counter.so" "$src/tests/alloc/alloc_counter.c" || exit 1

# model ceiling (allocations per run)
ceilings="squeezenet1_1 1000
mobilenet_v2 1800
resnet50 2000
bert_like_enc12 3400"

status=0
while read -r model ceiling; do
  [ -f "$models/$model.onnx" ] || { echo "$model: absent, skipped"; continue; }
  for threads in 1 2; do
    out="$(LD_PRELOAD="$tmp/liballoc_counter.so" "$onyx" bench "$models/$model.onnx" --threads "$threads" \
      --warmup 3 --runs 5 --into --json)" || { echo "$model: onyx bench failed"; status=1; continue; }
    count="$(printf '%s\n' "$out" | sed -n 's/.*"allocs_per_run": \([0-9.]*\).*/\1/p')"
    rss="$(printf '%s\n' "$out" | sed -n 's/.*"peak_rss_mb": \([0-9.]*\).*/\1/p')"
    if [ -z "$count" ]; then
      echo "$model: no allocs_per_run in: $out"
      status=1
      continue
    fi
    verdict=ok
    if awk -v c="$count" -v m="$ceiling" 'BEGIN { exit !(c > m) }'; then
      verdict="FAIL (ceiling $ceiling)"
      status=1
    fi
    echo "$model threads=$threads allocs_per_run=$count peak_rss_mb=$rss $verdict"
  done
done <<<"$ceilings"
exit $status
