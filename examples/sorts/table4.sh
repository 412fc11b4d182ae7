#!/usr/bin/env bash
# Amato et al.'s (1999) Table 4 on this machine: each BSP sort's counter files at ten sizes,
# n/p = 1e5 i for i = 1..10 as in section 5.4; counts fitted on the five smallest, forecast at the
# five largest (up to ten times the smallest) and set against the counts and times measured
# there. Sizes already collected are kept (an interrupted run resumes).
#   bash examples/sorts/table4.sh [profile] [threads]
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=${1:-machines/vm.yaml}
threads=${2:-2}
bin=build/release/bin
out=results/table4/$(basename "$profile" .yaml)-p$threads
mkdir -p "$out"
report=examples/sorts/table4-$(basename "$profile" .yaml).txt
{
  echo "# Amato et al. (1999), Table 4, on $(basename "$profile" .yaml): p = $threads threads, n/p = 1e5 i"
  echo "# bash examples/sorts/table4.sh $profile $threads"
  echo
} >"$report.partial"
for algorithm in radix sample column; do
  pilots=() targets=()
  for i in 1 2 3 4 5 6 7 8 9 10; do
    n=$((100000 * i * threads))
    file=$out/$algorithm-$n.csv
    if [[ ! -f $file ]]; then
      echo "table4: $algorithm n = $n" >&2
      "$bin/sonde" counters --machine "$profile" --size "$n" --repetitions 7 -o "$file" -- \
        "$bin/sonde-example-sort" --algorithm "$algorithm" --size "$n" --threads "$threads" >/dev/null
    fi
    if ((i <= 5)); then pilots+=("$file"); else targets+=("$file"); fi
  done
  {
    echo "## $algorithm sort"
    echo
    "$bin/sonde" extrapolate --machine "$profile" "${pilots[@]}" --measured "${targets[@]}"
    echo
    echo "### Every function on the measured counts of the five large sizes"
    echo
    "$bin/sonde" predict --machine "$profile" --counters "${targets[@]}"
    echo
  } >>"$report.partial"
done
mv "$report.partial" "$report"
echo "table4: written to $report" >&2
