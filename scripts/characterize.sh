#!/usr/bin/env bash
# The main job: installs what is missing, builds, characterizes this machine and prints its
# memory-hierarchy summary. Extra arguments go to `sonde characterize` (e.g. --resume, --quick).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
exec build/release/bin/sonde characterize "$@"
