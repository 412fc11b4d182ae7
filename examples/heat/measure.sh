#!/usr/bin/env bash
# Measures the heat example at 1, 2 and 4 MPI ranks (the median of 5 runs each, the slowest
# rank's time) into examples/heat/measured.csv, then sets the prediction beside it:
#   bash examples/heat/measure.sh [build folder, default build/release]
# On a machine with fewer cores than ranks the runs are oversubscribed (scripts/mpi-env.sh allows
# it); the prediction assumes one process per core, so such points are outside the model.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
source scripts/mpi-env.sh
launcher=${SONDE_MPIEXEC:-mpiexec}
out=examples/heat/measured.csv
partial=$out.partial
echo "n,time [s]" > "$partial"
for ranks in 1 2 4; do
  times=$("$launcher" -n "$ranks" "$build/bin/sonde-example-heat" --repetitions 5 |
          grep -o '"seconds": [0-9.e+-]*' | cut -d' ' -f2 | sort -g)
  median=$(echo "$times" | sed -n 3p)
  echo "heat: $ranks ranks: $(echo $times | tr '\n' ' ')-> median $median s" >&2
  echo "$ranks,$median" >> "$partial"
done
mv "$partial" "$out"
"$build/bin/sonde" predict --machine machines/vm.yaml examples/heat/heat.csv --nodes 1,2,4 \
  --measured "$out" --plots examples/heat
