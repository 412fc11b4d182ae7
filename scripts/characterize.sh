#!/usr/bin/env bash
# The main job: installs what is missing, builds, characterizes this machine (the single-node
# suites and the MPI suite with one rank per core), prints the summaries, writes the machine's
# profile (machines/<machine>.yaml and its plots) and predicts the bundled example on it. Extra arguments go to
# `sonde characterize` (e.g. --resume, --quick, --mpi-launcher "mpirun -np 64 --hostfile hosts").
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
source scripts/mpi-env.sh
log=$(mktemp)
trap 'rm -f "$log"' EXIT
build/release/bin/sonde characterize --mpi "$@" | tee "$log"
profile=$(sed -n 's/^Profile: \([^ ]*\) .*/\1/p' "$log")
echo
echo "== The bundled example (examples/heat/heat.csv) predicted on $profile =="
build/release/bin/sonde predict --machine "$profile" examples/heat/heat.csv --nodes 1,2,4
