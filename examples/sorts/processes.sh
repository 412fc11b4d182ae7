#!/usr/bin/env bash
# Counts forecast in problem size and process count at once (Calotoiu et al. (2016), as
# `sonde extrapolate` models pilot runs at several process counts): radix sort's counter files at
# five sizes and four thread counts, forecast at a size and at thread counts never run, and set
# against the counts measured there. Counts come from valgrind's cache simulation where the CPU
# has no hardware events, so they do not depend on the machine's load; on a 2-core machine the
# runs of more than 2 threads are oversubscribed and their measured times mean little, which the
# report says. Files already collected are kept (an interrupted run resumes).
#   bash examples/sorts/processes.sh [profile]
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=${1:-machines/vm.yaml}
bin=build/release/bin
out=results/processes/$(basename "$profile" .yaml)
mkdir -p "$out"
report=examples/sorts/processes-$(basename "$profile" .yaml).txt
collect() {  # size threads
  local file=$out/radix-$1-p$2.csv
  if [[ ! -f $file ]]; then
    echo "processes: radix n = $1, p = $2" >&2
    "$bin/sonde" counters --machine "$profile" --size "$1" --processes "$2" --repetitions 3 \
      -o "$file" -- "$bin/sonde-example-sort" --algorithm radix --size "$1" --threads "$2" >/dev/null
  fi
  echo "$file"
}
pilots=() targets=()
for n in 240000 480000 720000 960000 1200000; do
  for p in 1 2 3 4; do pilots+=("$(collect $n $p)"); done
done
for p in 6 8; do targets+=("$(collect 2400000 $p)"); done
{
  echo "# radix sort's counts in size and processes at once, on $(basename "$profile" .yaml)"
  echo "# pilots: n = 240000 .. 1200000, p = 1 .. 4; forecast at n = 2400000, p = 6 and 8"
  echo "# bash examples/sorts/processes.sh $profile"
  echo "# $(nproc) cores here: measured times at p > $(nproc) are oversubscribed; compare the"
  echo "# F columns (measured counts against extrapolated counts)"
  echo
  "$bin/sonde" extrapolate --machine "$profile" "${pilots[@]}" --measured "${targets[@]}"
} >"$report.partial"
mv "$report.partial" "$report"
echo "processes: written to $report" >&2
