#!/usr/bin/env bash
# Replay validation: each MPI program of the validation corpus and the heat example is run
# untraced, then traced (`sonde trace`), and the trace is replayed on PROFILE (`sonde replay`),
# at 2 ranks and at 4 (oversubscribed where the machine has fewer cores, and flagged so). The
# table compares the replay's prediction with the traced run's own time, and the programs' own
# timings with and without the tracer (what tracing costs them).
#   bash examples/replay/validate.sh PROFILE [RECORDS FOLDER] [BUILD FOLDER]
# SONDE_REPLAY_RANKS sets the rank counts (default "2 4"); SONDE_MPIEXEC the launcher (default
# mpiexec); SONDE_REPLAY_ARGS more options for `sonde replay`. Traces go to <build>/replay-traces.
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=${1:?usage: validate.sh PROFILE [RECORDS FOLDER] [BUILD FOLDER]}
records=${2:-examples/replay/records/$(basename "$profile" .yaml)}
build=${3:-build/release}
ranks_list=${SONDE_REPLAY_RANKS:-2 4}
launcher=${SONDE_MPIEXEC:-mpiexec}
read -r -a replay_args <<<"${SONDE_REPLAY_ARGS:-}"
source scripts/mpi-env.sh
bin=$build/bin
traces=$build/replay-traces
mkdir -p "$records" "$traces"
cores=$(nproc)
table=$records/replay.csv
echo "program,ranks,cores,oversubscribed,traced_run_s,predicted_s,E,program_median_traced_s,program_median_untraced_s,tracer_slowdown" \
  >"$table.partial"

# The median of the {"seconds": x} lines a program prints, one per repetition.
median_seconds() {
  grep -o '"seconds": *[0-9.eE+-]*' "$1" | sed 's/.*: *//' | sort -g |
    awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
                          else printf "%.9g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
json_number() { grep -o "\"$2\": *[0-9.eE+-]*" "$1" | head -1 | sed 's/.*: *//'; }

status=0
run() {
  local name=$1 n=$2
  shift 2
  local stem=$records/$name-n$n
  echo "== $name at $n ranks" >&2
  if ! $launcher -n "$n" "$@" >"$stem.untraced.txt"; then
    echo "$name at $n ranks failed untraced" >&2
    status=1
    return
  fi
  if ! "$bin/sonde" trace -o "$traces/$name-n$n.otf2" --machine "$(basename "$profile" .yaml)" -- \
      $launcher -n "$n" "$@" >"$stem.traced.txt"; then
    echo "$name at $n ranks failed traced" >&2
    status=1
    return
  fi
  if ! "$bin/sonde" replay "$traces/$name-n$n.otf2" --machine "$profile" --json "$stem.json" \
      "${replay_args[@]}" >"$stem.replay.txt"; then
    echo "$name at $n ranks: the replay failed" >&2
    status=1
    return
  fi
  local traced untraced
  traced=$(median_seconds "$stem.traced.txt")
  untraced=$(median_seconds "$stem.untraced.txt")
  printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$name" "$n" "$cores" \
    "$([[ $n -gt $cores ]] && echo yes || echo no)" \
    "$(json_number "$stem.json" measured_seconds)" "$(json_number "$stem.json" predicted_seconds)" \
    "$(json_number "$stem.json" error_ratio)" "$traced" "$untraced" \
    "$(awk -v a="$traced" -v b="$untraced" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "nan"}')" \
    >>"$table.partial"
}
r=(--repetitions 3)
for n in $ranks_list; do
  run stream "$n" "$bin/sonde-example-stream" "${r[@]}"
  run stencil "$n" "$bin/sonde-example-stencil" "${r[@]}"
  run cg "$n" "$bin/sonde-example-cg" "${r[@]}"
  run transpose "$n" "$bin/sonde-example-transpose" "${r[@]}"
  run matmul "$n" "$bin/sonde-example-matmul" "${r[@]}"
  run random_update "$n" "$bin/sonde-example-random_update" "${r[@]}"
  run heat "$n" "$bin/sonde-example-heat" "${r[@]}"
done
mv "$table.partial" "$table"
column -s, -t "$table" >&2 || cat "$table" >&2
exit $status
