#!/usr/bin/env bash
# Device call 2 (2026-11-27, evening): the L1 wander again, with the probe built for x86-64-v4
# (AVX-512, as the pack's programs are) and for x86-64-v3 side by side around each multiply.
set -uo pipefail
source .dev/common.sh
mkdir -p "$OUT"
bind() { if command -v taskset > /dev/null; then taskset -c 0 "$@"; else "$@"; fi; }
for _ in $(seq 1 "${WANDER_RUNS:-30}"); do
  before=$(bind .dev/in-core-probe-v4)
  before3=$(bind .dev/in-core-probe)
  runs=$(bind sonde-example-matmul --repetitions 3 | tr '\n' ' ')
  after=$(bind .dev/in-core-probe-v4)
  echo "$before | $runs | $after | v3 before: $before3"
done > "$OUT/l1-wander-v4.txt" 2>&1
log "done"
