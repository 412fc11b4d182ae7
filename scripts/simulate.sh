#!/usr/bin/env bash
# The full characterizations of the simulated clusters of simulation/platforms/ (docs/simulation.md):
# each platform under SimGrid's smpirun, its profile fitted, the wall time of each run recorded.
#   scripts/simulate.sh [OUT] [PLATFORM:RANKS ...]
# OUT (default simulated/) receives results/, machines/ and times.txt. Without platforms:
# flat:64 protocols:2 multicore:64 torus-3d:64 fattree-256:256. Needs the release build with
# SimGrid (scripts/install-deps.sh installs it; build/release/bin/sonde-bench-mpi-smpi).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-simulated}
shift || true
runs=("$@")
if [[ ${#runs[@]} -eq 0 ]]; then
  runs=(flat:64 protocols:2 multicore:64 torus-3d:64 fattree-256:256)
fi
sonde=build/release/bin/sonde
if [[ ! -x build/release/bin/sonde-bench-mpi-smpi ]]; then
  echo "simulate: build/release/bin/sonde-bench-mpi-smpi is missing: install libsimgrid-dev" \
       "(scripts/install-deps.sh) and build the release preset" >&2
  exit 1
fi
mkdir -p "$out"
for run in "${runs[@]}"; do
  platform=${run%%:*}
  ranks=${run##*:}
  echo "== $platform, $ranks ranks"
  started=$SECONDS
  "$sonde" characterize --platform "simulation/platforms/$platform.xml" --ranks "$ranks" \
    --machine "$platform-$ranks" --results "$out/results" --profiles "$out/machines" \
    > "$out/$platform-$ranks.log" 2>&1
  echo "$platform $ranks ranks: $((SECONDS - started)) s" | tee -a "$out/times.txt"
  "$sonde" show "$out/machines/$platform-$ranks.yaml" | sed -n '/^Point-to-point/,/^$/p;/^Collectives/,/^$/p'
done
