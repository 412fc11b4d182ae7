#!/usr/bin/env bash
# Device call (2026-11-28), the 16-core node a sixth time: the saturation rule of a4902ff (processes
# sharing a level's bandwidth hide their L1 work once they saturate it), chosen on the 2-core Zen 3
# guest, checked blind at 1 to 16 processes sharing one node's memory. A characterization of the
# parts the stream, the 2-D stencil and heat need, threads 1 to 16 and the MPI suite at 16 ranks,
# then those three programs checked on it with the v13 sheets (committed before this call).
#   bash examples/corpus/records/gpu-host-16c-1128/run.sh PACK
# PACK is scripts/pack-node.sh's tarball of an MPICH build for the node's CPU. Writes to $OUT.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
pack=${1:?usage: run.sh PACK}
OUT=${OUT:-/tmp/out}
machine=${MACHINE:-gpu-host-16c-1128}
mkdir -p "$OUT"
log() { echo "$(date -u +%T) $*" | tee -a "$OUT/log.txt"; }
tar -xJf "$pack" -C /tmp || exit 1
# shellcheck disable=SC1091 # the pack's own environment
source /tmp/sonde/env.sh
# MPICH's UCX over TCP hung in its teardown on this node (../gpu-host-16c-1127e/): shared memory only.
export UCX_TLS=^tcp SONDE_MPIEXEC="mpiexec.hydra -bind-to core"
{ lscpu; echo; head -3 /proc/meminfo; echo; uname -a; echo; cat /tmp/sonde/PACKED; } \
  >"$OUT/machine.txt" 2>&1
work=/tmp/char
mkdir -p "$work"
# The least effort (the planner's estimate is over the default 10 minutes; on this node it takes
# about 6 minutes), no update, indexed or stencil kernel: heat's v13 sheet cannot be priced on it.
log "characterize"
(cd "$work" && timeout "${CHARACTERIZE_SECONDS:-420}" sonde characterize --machine "$machine" \
  --threads 1,2,4,8,16 --mpi-launcher "mpiexec.hydra -n 16 -bind-to core" \
  --part latency-random-base,bandwidth-t1,bandwidth-t2,bandwidth-t4,bandwidth-t8,bandwidth-t16,peak,kernels,pingpong,collectives \
  --results "$work/results" --profiles "$work/machines" >"$OUT/characterize.txt" 2>"$OUT/characterize.err")
log "characterize rc=$?"
profile=$work/machines/$machine.yaml
if [[ -f "$profile" ]]; then
  cp "$profile" "$OUT/"
  cp "$work"/results/"$machine"/*/drift.json "$OUT/" 2>/dev/null
  log "check"
  SONDE_SHEETS=v13 SONDE_CHECK_RANKS=1,2,4,8,16 SONDE_CHECK_PROGRAMS="${PROGRAMS:-stream stencil heat}" \
    SONDE_CHECK_OPTIONS="--no-probe --time-limit 60s" \
    timeout "${CHECK_SECONDS:-100}" bash examples/corpus/check.sh "$profile" "$OUT/v13" /tmp/sonde \
    >"$OUT/check.log" 2>&1
  log "check rc=$?"
  # Without the stencil kernel (the least effort leaves it out) heat's v13 cannot be priced: its v3.
  if [[ ! -s "$OUT/v13/heat.csv" && " ${PROGRAMS:-heat} " == *" heat "* ]]; then
    log "heat v3"
    SONDE_SHEETS=v3 SONDE_CHECK_RANKS=1,2,4,8,16 SONDE_CHECK_PROGRAMS=heat \
      SONDE_CHECK_OPTIONS="--no-probe --time-limit 60s" \
      timeout 40 bash examples/corpus/check.sh "$profile" "$OUT/v3" /tmp/sonde >"$OUT/check-v3.log" 2>&1
    log "heat v3 rc=$?"
  fi
fi
tar -C "$work" -cJf "$OUT/raw-results.tar.xz" results 2>/dev/null
log "done"
