#!/usr/bin/env bash
# The main job: installs what is missing, builds, characterizes this machine (the single-node
# suites and the MPI suite with one rank per core) and prints the summaries. Extra arguments go to
# `sonde characterize` (e.g. --resume, --quick, --mpi-launcher "mpirun -np 64 --hostfile hosts").
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
source scripts/mpi-env.sh
exec build/release/bin/sonde characterize --mpi "$@"
