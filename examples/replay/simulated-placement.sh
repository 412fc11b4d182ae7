#!/usr/bin/env bash
# The replay's placement of ranks on several nodes, checked against a simulated cluster: heat is
# traced here at 16 ranks, then run under SimGrid's SMPI on simulation/platforms/multicore.xml (16
# ranks, 8 a node on 2 nodes, computation simulated at this machine's speed), and the trace is
# replayed on the simulated machine's profiles: one node's (8 ranks) for messages inside a node,
# two nodes' (16 ranks) for messages between them, 8 ranks a node in blocks and round-robin. A
# replay as if on one node (every message inside it) is the control: what ignoring placement costs.
#   bash examples/replay/simulated-placement.sh [RECORDS FOLDER] [BUILD FOLDER]
# Writes placement.csv and each step's output into the records folder (default
# examples/replay/records/simulated-multicore). Needs the release build with SimGrid.
set -euo pipefail
cd "$(dirname "$0")/../.."
records=${1:-examples/replay/records/simulated-multicore}
build=${2:-build/release}
bin=$build/bin
platform=simulation/platforms/multicore.xml
heat_args=(--points "${SONDE_HEAT_POINTS:-65536}" --steps "${SONDE_HEAT_STEPS:-4000}" --repetitions 1)
source scripts/mpi-env.sh
mkdir -p "$records"
work=$build/simulated-placement
mkdir -p "$work"

echo "== the simulated machine: one node (8 ranks) and two nodes (16 ranks)" >&2
for ranks in 8 16; do
  "$bin/sonde" characterize --platform "$platform" --ranks "$ranks" --machine "multicore-$ranks" \
    --part pingpong,collectives --results "$work/results" --profiles "$records" \
    >"$records/characterize-$ranks.txt" 2>&1
done

echo "== heat traced here at 16 ranks" >&2
"$bin/sonde" trace -o "$work/heat-n16.otf2" --machine "$(hostname)" -- \
  mpiexec -n 16 "$bin/sonde-example-heat" "${heat_args[@]}" >"$records/heat-n16.traced.txt"

# Two placements on 2 nodes of 8 cores: blocks (ranks 0-7 on node-0; two of the ring's 16
# neighbour pairs cross nodes) and round-robin (even ranks on node-0; every pair crosses).
printf 'node-0:8\nnode-1:8\n' >"$work/hosts-block.txt"
for i in $(seq 8); do printf 'node-0\nnode-1\n'; done >"$work/hosts-round-robin.txt"

# heat's own time (its time steps, simulated) is the measurement: its set-up before them is a few
# hundred microseconds of the whole run the replay predicts. Without computation (messages alone,
# exact) the placement and the network are checked alone; with computation SMPI charges each
# computation the time it takes here (the platform's cores run at 10 Gflop/s, and so, SMPI is
# told, does this machine).
smpi_heat() {  # placement, computation yes|no
  smpirun -np 16 -platform "$platform" -hostfile "$work/hosts-$1.txt" \
    --cfg=smpi/host-speed:10Gf --cfg=smpi/simulate-computation:"$2" \
    --cfg=smpi/coll-selector:mpich "$bin/sonde-example-heat-smpi" "${heat_args[@]}" \
    >"$records/heat-n16.smpi-$1-computation-$2.txt" 2>"$records/heat-n16.smpi-$1-computation-$2.log"
  local t
  t=$(grep -o '"seconds": *[0-9.eE+-]*' "$records/heat-n16.smpi-$1-computation-$2.txt" | sed 's/.*: *//')
  if [[ -z "$t" ]]; then
    echo "simulated-placement: heat under smpirun printed no time" \
         "(see $records/heat-n16.smpi-$1-computation-$2.log)" >&2
    exit 1
  fi
  echo "$t"
}
# The trace replayed on the simulated machine: messages inside a node from the one-node profile,
# between nodes from the two-node one. --speed-ratio 1e-3 (the target computes a thousand times
# faster) leaves the computation out.
replay_heat() {  # placement, speed ratio
  local stem=$records/replay-$1-ratio-$2
  "$bin/sonde" replay "$work/heat-n16.otf2" --machine "$records/multicore-8.yaml" \
    --network "$records/multicore-16.yaml" --ranks-per-node 8 --placement "$1" \
    --speed-ratio "$2" --json "$stem.json" >"$stem.txt"
  grep -o '"predicted_seconds": *[0-9.eE+-]*' "$stem.json" | head -1 | sed 's/.*: *//'
}

echo "== heat under SMPI and replayed, two placements, with and without computation" >&2
{
  echo "placement,computation,simulated_s,predicted_s,E"
  for placement in block round-robin; do
    for computation in no yes; do
      ratio=1e-3
      [[ $computation == yes ]] && ratio=1
      t=$(smpi_heat "$placement" "$computation")
      p=$(replay_heat "$placement" "$ratio")
      awk -v n="$placement" -v c="$computation" -v t="$t" -v p="$p" \
        'BEGIN {e = (p > t) ? p / t : t / p; printf "%s,%s,%.6g,%.6g,%.3f\n", n, c, t, p, e}'
    done
  done
  # The control: the same trace replayed as if all 16 ranks shared one node of 16 processors
  # (every message inside it), against the blocks' simulated run. A replay that ignored the
  # placement would be this far off.
  t=$(smpi_heat block no)
  stem=$records/replay-one-node-ratio-1e-3
  "$bin/sonde" replay "$work/heat-n16.otf2" --machine "$records/multicore-8.yaml" \
    --ranks-per-node 16 --processors-per-node 16 --speed-ratio 1e-3 --json "$stem.json" >"$stem.txt"
  p=$(grep -o '"predicted_seconds": *[0-9.eE+-]*' "$stem.json" | head -1 | sed 's/.*: *//')
  awk -v t="$t" -v p="$p" 'BEGIN {e = (p > t) ? p / t : t / p;
    printf "control: all on one node (against block),no,%.6g,%.6g,%.3f\n", t, p, e}'
} >"$records/placement.csv"
cat "$records/placement.csv"
