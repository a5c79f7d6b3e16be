#!/bin/bash
# Heap allocations per run in steady state for the four exported benchmark models (issue 18): `onyx bench --into`
# under the malloc-counting hook (alloc_counter.c, built here), default optimization level, 1 and 2 threads.
# alloc_counter.c tells the allocations oneDNN makes inside its own calls (dnnl_primitive_execute's execution context,
# sgemm's packing buffers: nothing onyx can change from outside) from onyx's own. For each model and thread count it
# prints both per run and fails unless onyx's own count is 0 and the total is within the model's ceiling below (the
# library's count measured when onyx's went to zero, plus a small margin). Each case runs twice: with the fixed rules
# (ONYX_TUNING=off), where the library's count is deterministic and the ceiling applies, and with the tuning cache
# the session would use, where onyx's own count must be 0 as well but the library's depends on what timing chose (a
# convolution split between threads executes one oneDNN primitive per thread, each with its execution context: a
# test cache that had picked many splits gave MobileNet-v2 1111 library allocations per run at 2 threads).
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
"$cc" -O2 -shared -fPIC -o "$tmp/liballoc_counter.so" "$src/tests/alloc/alloc_counter.c" -ldl || exit 1

runs=5
# model, ceiling with AVX2, ceiling with AVX-512 (total allocations per run: oneDNN's own, measured at 1 and 2 threads,
# plus margin; the AVX2 column on an AMD EPYC, the AVX-512 one on an Intel Xeon (Ice Lake), whose fixed rules take
# oneDNN's Winograd kernels: ResNet-50 at 1 thread 624 there against ~450 with AVX2; BERT-like's 12 Gemm projections
# on oneDNN's matmul primitive since session 38, 6 more each: 756 at 2 threads on an Intel Xeon, Sapphire Rapids)
ceilings="squeezenet1_1 240 240
mobilenet_v2 690 690
resnet50 470 680
bert_like_enc12 820 820"
# The ISA the kernels see: AVX-512 where the CPU has it and ONYX_MAX_ISA does not cap it (kernels/cpu_isa.h).
column=2
if grep -qw avx512f /proc/cpuinfo && [ "$(printf '%s' "${ONYX_MAX_ISA:-native}" | tr 'A-Z' 'a-z')" != avx2 ]; then
  column=3
fi

status=0
while read -r model ceiling_avx2 ceiling_avx512; do
  ceiling=$ceiling_avx2
  [ "$column" = 3 ] && ceiling=$ceiling_avx512
  [ -f "$models/$model.onnx" ] || { echo "$model: absent, skipped"; continue; }
  for config in "1 off" "2 off" "1 cache" "2 cache"; do
    read -r threads tuning <<<"$config"
    report="$tmp/$model.$threads.$tuning.counts"
    out="$(ONYX_TUNING="$tuning" ONYX_ALLOC_REPORT="$report" LD_PRELOAD="$tmp/liballoc_counter.so" "$onyx" bench \
      "$models/$model.onnx" --threads "$threads" --warmup 3 --runs "$runs" --into --json)" ||
      { echo "$model: onyx bench failed"; status=1; continue; }
    rss="$(printf '%s\n' "$out" | sed -n 's/.*"peak_rss_mb": \([0-9.]*\).*/\1/p')"
    # The counter's two readings: before the timed runs and after them.
    if [ "$(wc -l <"$report" 2>/dev/null || echo 0)" -lt 2 ]; then
      echo "$model: the allocation counter was not read twice (output: $out)"
      status=1
      continue
    fi
    read -r total library < <(tail -n 2 "$report" | awk -v runs="$runs" \
      'NR == 1 { t = $1; l = $2 } NR == 2 { printf "%.1f %.1f\n", ($1 - t) / runs, ($2 - l) / runs }')
    own="$(awk -v t="$total" -v l="$library" 'BEGIN { printf "%.1f", t - l }')"
    verdict=ok
    if awk -v o="$own" 'BEGIN { exit !(o > 0) }'; then
      verdict="FAIL (onyx's own allocations must be 0)"
      status=1
    elif [ "$tuning" = off ] && awk -v c="$total" -v m="$ceiling" 'BEGIN { exit !(c > m) }'; then
      verdict="FAIL (ceiling $ceiling)"
      status=1
    fi
    echo "$model threads=$threads tuning=$tuning allocs_per_run=$total onednn=$library onyx=$own peak_rss_mb=$rss $verdict"
  done
done <<<"$ceilings"
exit $status
