#!/bin/bash
# Two onyx binaries in turn on one model: the medians of `onyx bench` per round and their mean, so that a change can
# be measured on a noisy host (each round sees both binaries in the same phase of the machine).
# usage: bench/ab_binaries.sh ONYX_A ONYX_B MODEL THREADS ROUNDS [onyx bench options...]
set -euo pipefail
if [ $# -lt 5 ]; then
  sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
A=$1; B=$2; MODEL=$3; THREADS=$4; ROUNDS=$5; shift 5
for _ in $(seq "$ROUNDS"); do
  for bin in "$A" "$B"; do
    printf "%s " "$bin"
    "$bin" bench "$MODEL" --threads "$THREADS" --runs 100 --warmup 10 "$@" | awk '/^median_ms:/ {print $2}'
  done
done | awk '{a[$1] = a[$1] " " $2; s[$1] += $2; n[$1]++} END {for (k in a) printf "%s%s  mean %.3f\n", k, a[k], s[k] / n[k]}'
