#!/usr/bin/env bash
# Device call (2026-11-27, evening), the 16-core node a fifth time. The Zen 3 guest's experiments
# again here: the core's own L1 around the multiply, heat's loop against the stencil kernel, heat's
# and the 2-D stencil's own times from one invocation to the next; then a short characterize (no
# MPI, threads 1 and 16) so that the machine probe's in-core read runs on this node's cores, and the
# multiply checked on that profile at 1 and 16 ranks with the probes on.
set -uo pipefail
source .dev/common.sh
MACHINE=${MACHINE:-gpu-host-16c-1127f} THREADS=${THREADS:-1,16}
export UCX_TLS=^tcp SONDE_MPIEXEC="mpiexec.hydra -bind-to core"
mkdir -p "$OUT" /tmp/char
{ lscpu; echo; head -3 /proc/meminfo; echo; uname -a; } > "$OUT/machine.txt" 2>&1
bind() { if command -v taskset > /dev/null; then taskset -c 0 "$@"; else "$@"; fi; }
log "l1 wander" | tee -a "$OUT/log.txt"
for _ in $(seq 1 "${WANDER_RUNS:-20}"); do
  before=$(bind .dev/in-core-probe)
  runs=$(bind sonde-example-matmul --repetitions 3 | tr '\n' ' ')
  after=$(bind .dev/in-core-probe)
  echo "$before | $runs | $after"
done > "$OUT/l1-wander.txt" 2>&1
log "heat loop" | tee -a "$OUT/log.txt"
{
  for round in 1 2 3; do
    echo "# round $round: sonde-example-heat, one rank, 3 repetitions"
    bind sonde-example-heat --repetitions 3
    echo "# heat-loop.cpp, x86-64-v4"; bind .dev/heat-loop-v4
    echo "# heat-loop.cpp, x86-64-v3"; bind .dev/heat-loop-v3
  done
} > "$OUT/heat-loop.txt" 2>&1
log "own times" | tee -a "$OUT/log.txt"
for i in 1 2 3 4 5; do
  echo "# invocation $i: sonde-example-stencil --N 4096 --K 30 --repetitions 3, one rank"
  mpiexec.hydra -n 1 -bind-to core sonde-example-stencil --N 4096 --K 30 --repetitions 3
done > "$OUT/own-times.txt" 2>&1
log "characterize" | tee -a "$OUT/log.txt"
( cd /tmp/char && timeout 240 sonde characterize --machine "$MACHINE" --threads "$THREADS" --budget 4m \
  --part latency-random-base,bandwidth-t1,bandwidth-t${THREADS##*,},peak,kernels \
  --results /tmp/char/results --profiles /tmp/char/machines > characterize.txt 2> characterize.err )
log "characterize rc=$?" | tee -a "$OUT/log.txt"
profile=/tmp/char/machines/$MACHINE.yaml
if [[ -f $profile ]]; then
  log "check matmul" | tee -a "$OUT/log.txt"
  ( cd /tmp/char && timeout 120 sonde check "$OLDPWD/examples/corpus/matmul/matmul-v9.csv" --machine "$profile" \
    --ranks "${RANKS:-1,16}" --repetitions 5 --components --time-limit 60s --csv matmul.csv --json matmul.json \
    -- /tmp/sonde/bin/sonde-example-matmul --N '{N}' --BS '{BS}' --K '{K}' --repetitions '{repetitions}' \
    > check.log 2>&1 )
  log "check rc=$?" | tee -a "$OUT/log.txt"
fi
tar -C /tmp/char -cJf "$OUT/char.tar.xz" . 2>/dev/null
log "done" | tee -a "$OUT/log.txt"
