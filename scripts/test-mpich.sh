#!/usr/bin/env bash
# Builds sonde and its MPI program against MPICH (preset `mpich`, build/mpich) and runs the MPI
# tests under MPICH's launcher with 2 and 4 ranks. CI runs the Open MPI build (scripts/test.sh);
# this is how the MPICH build is checked.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset mpich >/dev/null
cmake --build --preset mpich -j "$(nproc)"
ctest --preset mpich
