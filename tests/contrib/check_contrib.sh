#!/bin/bash
# Runs the com.microsoft operator cases and the attention fusion models through `onyx conformance` (sessions, so
# checker-free loading, shape inference and kernel choice are covered too), unoptimized and at level all:
#   tests/contrib/check_contrib.sh build/bin/onyx
# The per-kernel comparison runs in the unit tests as well (ContribOpsTest, AttentionFusionTest).
set -euo pipefail
ONYX=${1:-build/bin/onyx}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA="$HERE/../data/contrib"
status=0
for level in disabled all; do
  # float32 results of reordered sums and vectorized transcendental functions: rtol 1e-4, atol 1e-5.
  "$ONYX" conformance --quiet --opt-level "$level" --rtol 1e-4 --atol 1e-5 "$DATA" || status=1  # the fusion models under it too
done
exit $status
