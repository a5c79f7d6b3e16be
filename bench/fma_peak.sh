#!/bin/sh
# Compiles bench/fma_peak.cc (g++ -O2 -march=native) into ~/.cache/onyx-bench and prints this CPU's FP32 FMA peak
# per core for AVX-512 and AVX2, on 1 thread and on all threads, as one JSON line. The result is cached per CPU
# model in ~/.cache/onyx-bench/fma_peak-<model>.json; --fresh measures again (do it on a quiet machine).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache="$HOME/.cache/onyx-bench"
mkdir -p "$cache"
model=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //; s/[^A-Za-z0-9]/_/g')
out="$cache/fma_peak-$model.json"
if [ "${1:-}" != "--fresh" ] && [ -s "$out" ]; then
  cat "$out"
  exit 0
fi
bin="$cache/fma_peak"
g++ -O2 -march=native -std=c++17 -pthread -o "$bin" "$here/fma_peak.cc"
"$bin" > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
