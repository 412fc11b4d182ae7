#!/usr/bin/env bash
# Checks the validation corpus (and the heat example's resource spreadsheet) against a profile:
# `sonde check` at 1 and 2 ranks (or SONDE_CHECK_RANKS), 5 repetitions each, at each spreadsheet's
# own sizes; the hybrid stream_threads with 1 and 2 threads a rank where they fit the cores.
#   bash examples/corpus/check.sh PROFILE [RECORDS FOLDER] [BUILD FOLDER]
# Records go to <records>/<program>.csv and .json (default examples/corpus/records/<machine>/); the
# JSON also sets each phase the program marks beside its rows' prediction (--components).
# SONDE_SHEETS=v2 checks the second spreadsheets (<program>-v2.csv, with loads and stores), into
# examples/corpus/records/<machine>/v2/ by default; SONDE_SHEETS=vK takes each program's latest
# spreadsheet up to version K (v3: the transpose's column walk, the others' v2; v5: the stencil's
# halo step; v6: cg's in-place updates at the update kernel, which needs a profile that has it;
# v7: the transpose's walk and cg's update p with wider working sets; v8: cg's sparse product at
# the indexed kernel, which also needs a profile that has it; v9: misaligned loads and stores, which
# need a profile that measured the misaligned kernels; v10 and v11: the transpose's line gather;
# v12: heat's sweep at the stencil kernel, which needs a profile that has it; v13: heat's sweep at
# that kernel with its own loads and stores beyond the kernel's; v14: the multiply's rows' chain
# through memory, which needs a profile with the store_load kernel; v15: the 2-D stencil's sweep at
# the stencil kernel, as heat's since v13; v16: the transpose's self block at one process only,
# for the alltoall's timing holds it from two on).
# The programs run on this machine; PROFILE may be another machine's (a prediction across machines).
# SONDE_CHECK_RANKS sets the rank counts (default 1,2; e.g. 1,2,4,8,16 on a 16-core node), and
# SONDE_MPIEXEC the launcher `sonde check` puts before -n <n> (default mpiexec), and
# SONDE_CHECK_OPTIONS more options for every `sonde check` (e.g. --no-probe where time is short), and
# SONDE_CHECK_PROGRAMS which programs to check (default all: "stream stencil cg transpose matmul
# random_update heat stream_threads").
# A run that has not ended after 10 minutes (an MPI job hung in its teardown) is stopped, and that
# program's check fails; the others go on.
set -euo pipefail
cd "$(dirname "$0")/../.."
profile=${1:?usage: check.sh PROFILE [RECORDS FOLDER] [BUILD FOLDER]}
machine=$(basename "$profile" .yaml)
sheets=${SONDE_SHEETS:-v1}
suffix=""
[[ "$sheets" == v1 ]] || suffix="-$sheets"
records=${2:-examples/corpus/records/$machine${suffix:+/$sheets}}
build=${3:-build/release}
ranks=${SONDE_CHECK_RANKS:-1,2}
source scripts/mpi-env.sh
source examples/corpus/sheets.sh
[[ "$sheets" =~ ^v[1-9][0-9]*$ ]] || { echo "check.sh: SONDE_SHEETS is '$sheets'; expected v1, v2, ..." >&2; exit 2; }
mkdir -p "$records"
status=0
# The points each check runs: every rank count, the spreadsheet's own values.
points=(--ranks "$ranks")
programs=${SONDE_CHECK_PROGRAMS:-stream stencil cg transpose matmul random_update heat stream_threads}
for program in $programs; do
  [[ " stream stencil cg transpose matmul random_update heat stream_threads " == *" $program "* ]] ||
    { echo "check.sh: SONDE_CHECK_PROGRAMS names '$program'; expected some of stream stencil cg" \
        "transpose matmul random_update heat stream_threads" >&2; exit 2; }
done
check() {
  local name=$1 spreadsheet
  [[ " $programs " == *" ${name%-n*} "* ]] || return 0
  spreadsheet=$(sheet "$sheets" "$2")
  shift 2
  echo "== $name on $profile" >&2
  # shellcheck disable=SC2086 # the options split into words
  "$build/bin/sonde" check "$spreadsheet" --machine "$profile" "${points[@]}" --repetitions 5 \
      --components --time-limit 10m ${SONDE_CHECK_OPTIONS:-} --csv "$records/$name.csv" \
      --json "$records/$name.json" -- "$@" || status=1
}
bin=$build/bin
r=(--repetitions '{repetitions}')
check stream examples/corpus/stream/stream "$bin/sonde-example-stream" --N '{N}' --K '{K}' "${r[@]}"
check stencil examples/corpus/stencil/stencil "$bin/sonde-example-stencil" --N '{N}' --K '{K}' \
    "${r[@]}"
check cg examples/corpus/cg/cg "$bin/sonde-example-cg" --N '{N}' --K '{K}' "${r[@]}"
check transpose examples/corpus/transpose/transpose "$bin/sonde-example-transpose" --N '{N}' \
    --K '{K}' "${r[@]}"
check matmul examples/corpus/matmul/matmul "$bin/sonde-example-matmul" --N '{N}' --BS '{BS}' \
    --K '{K}' "${r[@]}"
check random_update examples/corpus/random_update/random_update \
    "$bin/sonde-example-random_update" --T '{T}' --K '{K}' "${r[@]}"
check heat examples/heat/heat-resources "$bin/sonde-example-heat" --points '{N}' \
    --steps '{K}' "${r[@]}"
# The hybrid program at each rank count with 1 and 2 threads a rank, where the ranks' threads fit
# this node's cores: records <records>/stream_threads-n<ranks>.csv and .json. Open MPI binds each
# rank to one core by default (up to 2 ranks), which runs a rank's threads on that one core: its
# ranks go unbound here. MPICH's launcher binds nothing unless told; a SONDE_MPIEXEC that binds
# (-bind-to core) must give each rank T cores instead (docs/usage.md).
export OMPI_MCA_hwloc_base_binding_policy=none
cores=$(nproc)
for n in ${ranks//,/ }; do
  points=(--ranks "$n")
  for t in 1 2; do ((n * t <= cores)) && points+=(--set "T=$t"); done
  ((${#points[@]} > 2)) || continue
  check "stream_threads-n$n" examples/corpus/stream_threads/stream_threads \
      "$bin/sonde-example-stream_threads" --N '{N}' --K '{K}' --T '{T}' "${r[@]}"
done
exit $status
