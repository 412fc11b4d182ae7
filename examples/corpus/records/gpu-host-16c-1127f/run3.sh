#!/usr/bin/env bash
# Device call 3 (2026-11-27, evening): the L1 wander with cpu 0's steal time around each multiply.
set -uo pipefail
source .dev/common.sh
mkdir -p "$OUT"
grep -E '^cpu ' /proc/stat > "$OUT/steal-wander.txt"
bash .dev/steal-wander.sh "${WANDER_RUNS:-20}" .dev/in-core-probe-v4 /tmp/sonde/bin/sonde-example-matmul >> "$OUT/steal-wander.txt" 2>&1
grep -E '^cpu ' /proc/stat >> "$OUT/steal-wander.txt"
log "done"
