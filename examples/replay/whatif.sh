#!/usr/bin/env bash
# What-ifs checked against runs on this machine, for each MPI program of the validation corpus
# and the heat example. A trace is taken with Open MPI at 2 ranks on 2 cores, then replayed
#  - on one processor (--processors-per-node 1: LBF's placement of both ranks on one processor),
#    against the program run with both ranks on core 0 (taskset; Open MPI told to yield when
#    idle, as it does when it knows it is oversubscribed);
#  - with MPICH's point-to-point and collectives (--network MPICH_PROFILE: NF's changed network),
#    against the program built with MPICH and run under MPICH's launcher.
# The measured runs are traced too (wall time only, SONDE_TRACE_PROCESS_TIME=0: ~0.1 us a call) for
# their span, the time the replay predicts.
#   bash examples/replay/whatif.sh OPEN_MPI_PROFILE MPICH_PROFILE [RECORDS FOLDER]
# Needs the release (Open MPI) and mpich presets built: build/release, build/mpich.
set -euo pipefail
cd "$(dirname "$0")/../.."
ompi_profile=${1:?usage: whatif.sh OPEN_MPI_PROFILE MPICH_PROFILE [RECORDS FOLDER]}
mpich_profile=${2:?usage: whatif.sh OPEN_MPI_PROFILE MPICH_PROFILE [RECORDS FOLDER]}
records=${3:-examples/replay/records/$(basename "$ompi_profile" .yaml)/what-if}
source scripts/mpi-env.sh
ompi=build/release/bin
mpich=build/mpich/bin
traces=build/release/what-if-traces
mkdir -p "$records" "$traces"
table=$records/what-if.csv
echo "program,what_if,traced_run_s,predicted_s,measured_s,E,E_without_the_what_if" >"$table.partial"
json_number() { grep -o "\"$2\": *[0-9.eE+-]*" "$1" | head -1 | sed 's/.*: *//'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {m = a > b ? a : b; n = a > b ? b : a; printf "%.4f", m / n}'; }

for name in stream stencil cg transpose matmul random_update heat; do
  echo "== $name" >&2
  args=(--repetitions 3)
  base=$traces/$name-ompi-2cores
  "$ompi/sonde" trace -o "$base.otf2" --machine "$(basename "$ompi_profile" .yaml)" -- \
    mpiexec -n 2 "$ompi/sonde-example-$name" "${args[@]}" >"$records/$name-ompi-2cores.txt"
  "$ompi/sonde" replay "$base.otf2" --machine "$ompi_profile" --json "$records/$name-same.json" \
    >"$records/$name-same.replay.txt"
  traced=$(json_number "$records/$name-same.json" measured_seconds)
  same=$(json_number "$records/$name-same.json" predicted_seconds)

  # Both ranks on core 0.
  "$ompi/sonde" replay "$base.otf2" --machine "$ompi_profile" --processors-per-node 1 \
    --json "$records/$name-one-core.json" >"$records/$name-one-core.replay.txt"
  SONDE_TRACE_PROCESS_TIME=0 OMPI_MCA_mpi_yield_when_idle=1 "$ompi/sonde" trace \
    -o "$traces/$name-ompi-1core.otf2" -- taskset -c 0 mpiexec -n 2 --bind-to none \
    "$ompi/sonde-example-$name" "${args[@]}" >"$records/$name-ompi-1core.txt"
  "$ompi/sonde" replay "$traces/$name-ompi-1core.otf2" --machine "$ompi_profile" \
    --processors-per-node 1 --json "$records/$name-one-core-measured.json" >/dev/null
  predicted=$(json_number "$records/$name-one-core.json" predicted_seconds)
  measured=$(json_number "$records/$name-one-core-measured.json" measured_seconds)
  echo "$name,one core,$traced,$predicted,$measured,$(ratio "$predicted" "$measured"),$(ratio "$same" "$measured")" \
    >>"$table.partial"

  # MPICH's network.
  "$ompi/sonde" replay "$base.otf2" --machine "$ompi_profile" --network "$mpich_profile" \
    --json "$records/$name-mpich.json" >"$records/$name-mpich.replay.txt"
  SONDE_TRACE_PROCESS_TIME=0 "$mpich/sonde" trace -o "$traces/$name-mpich.otf2" -- \
    mpiexec.hydra -n 2 -bind-to core "$mpich/sonde-example-$name" "${args[@]}" \
    >"$records/$name-mpich-2cores.txt"
  "$mpich/sonde" replay "$traces/$name-mpich.otf2" --machine "$mpich_profile" \
    --json "$records/$name-mpich-measured.json" >/dev/null
  predicted=$(json_number "$records/$name-mpich.json" predicted_seconds)
  measured=$(json_number "$records/$name-mpich-measured.json" measured_seconds)
  echo "$name,MPICH's network,$traced,$predicted,$measured,$(ratio "$predicted" "$measured"),$(ratio "$same" "$measured")" \
    >>"$table.partial"
done
mv "$table.partial" "$table"
cat "$table" >&2
