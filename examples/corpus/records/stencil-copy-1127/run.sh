#!/usr/bin/env bash
# The 2-D stencil at two ranks between two runs of the memory suite's two-thread DRAM copy and
# triad (256 MiB), ROUNDS times. SIZING is a characterization's sizing.json (its run folder), so
# that the suite runs the benchmarks that run measured. From the repository root, build/release built:
#   bash examples/corpus/records/stencil-copy-1127/run.sh SIZING [ROUNDS] > runs.txt
set -uo pipefail
sizing=${1:?usage: run.sh SIZING [ROUNDS]}
bin=build/release/bin
source scripts/mpi-env.sh
out=$(mktemp)
trap 'rm -f "$out"' EXIT
bandwidths() {
  "$bin/sonde-bench-memory" --sizing="$sizing" --threads=1,2 --part=bandwidth-t2 \
    --benchmark_filter='memory.bandwidth.(copy|triad)/threads:2/ws:268435456/' --out="$out" \
    > /dev/null 2>&1
  python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(' '.join('%s %.1f' % (b['name'].split('.')[2].split('/')[0], b['bytes_per_second'] / 1e9)
               for b in d['benchmarks'] if b['name'].endswith('median')))" "$out"
}
for _ in $(seq 1 "${2:-6}"); do
  before=$(bandwidths)
  times=$(mpiexec -n 2 "$bin/sonde-example-stencil" --N 4096 --K 30 --repetitions 3 2>&1 |
    grep -o '"seconds": [0-9.]*' | cut -d' ' -f2 | tr '\n' ' ')
  after=$(bandwidths)
  echo "before: $before | stencil n=2 s: $times| after: $after"
done
