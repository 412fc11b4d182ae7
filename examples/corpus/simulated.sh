#!/usr/bin/env bash
# The corpus's programs that send messages (stencil, cg, transpose) and the heat example at scale,
# on a simulated cluster: each runs under SimGrid's SMPI at 16, 64 and 256 ranks and `sonde check`
# sets its simulated time beside the prediction on the simulated machine's profile.
#   bash examples/corpus/simulated.sh [NODE PROFILE] [RECORDS FOLDER] [BUILD FOLDER]
# SMPI simulates the network exactly and not the node (docs/simulation.md), so the check is of the
# communication: SMPI runs with smpi/simulate-computation:no (the programs compute for real, and it
# costs no simulated time) and the measurement is set against the predicted T_comm alone
# (--communication-only). The cluster's messages, collectives and shape come from the simulated
# machine's profile (--network), characterized first at SONDE_SIM_PROFILE_RANKS ranks (default 64:
# the collective forms in n are fitted from 2 to 64 and extrapolated beyond); NODE PROFILE (default
# machines/epyc-vm.yaml) gives the node, which the comparison does not use but the prediction needs.
# SONDE_SIM_PLATFORM (default fattree-256, of simulation/platforms/) and SONDE_SIM_RANKS (default
# 16,64,256) choose the cluster and the rank counts; SONDE_SIM_NETWORK names a profile of the
# simulated machine made before (then none is characterized). Records go to
# <records>/<program>.csv and .json (default examples/corpus/records/simulated-<platform>/, and
# its vK/ for SONDE_SIM_SHEETS=vK), with
# the profile, the characterization's log and times.txt (the wall time of each step).
# SONDE_SIM_SHEETS=vK takes each program's latest spreadsheet up to version K, as check.sh's
# SONDE_SHEETS does (default v1; v5: the stencil's exchange as the measured halo step). From v4
# on, the transpose's sheet needs a node profile with a column walk, which machines/epyc-vm.yaml
# lacks: give NODE PROFILE (examples/corpus/records/epyc-vm-1126/epyc-vm-1126.yaml has one).
# Needs the release build with SimGrid (build/release/bin/sonde-bench-mpi-smpi).
set -euo pipefail
cd "$(dirname "$0")/../.."
node=${1:-machines/epyc-vm.yaml}
platform_name=${SONDE_SIM_PLATFORM:-fattree-256}
platform=simulation/platforms/$platform_name.xml
profile_ranks=${SONDE_SIM_PROFILE_RANKS:-64}
ranks=${SONDE_SIM_RANKS:-16,64,256}
sheets=${SONDE_SIM_SHEETS:-v1}
suffix=""
[[ "$sheets" == v1 ]] || suffix=/$sheets
records=${2:-examples/corpus/records/simulated-$platform_name$suffix}
build=${3:-build/release}
bin=$build/bin
work=$build/simulated-corpus/$platform_name
if [[ ! -x $bin/sonde-bench-mpi-smpi ]]; then
  echo "simulated: $bin/sonde-bench-mpi-smpi is missing: install libsimgrid-dev" \
       "(scripts/install-deps.sh) and build the release preset" >&2
  exit 1
fi
mkdir -p "$records" "$work"
source examples/corpus/sheets.sh
[[ "$sheets" =~ ^v[1-9][0-9]*$ ]] || { echo "simulated: SONDE_SIM_SHEETS is '$sheets'; expected v1, v2, ..." >&2; exit 2; }

network=${SONDE_SIM_NETWORK:-$records/$platform_name-$profile_ranks.yaml}
if [[ ! -f $network ]]; then
  echo "== the simulated machine: $platform_name, $profile_ranks ranks" >&2
  started=$SECONDS
  "$bin/sonde" characterize --platform "$platform" --ranks "$profile_ranks" \
    --machine "$platform_name-$profile_ranks" --results "$work/results" --profiles "$records" \
    >"$records/characterize-$profile_ranks.txt" 2>&1
  echo "characterize $platform_name $profile_ranks ranks: $((SECONDS - started)) s" \
    | tee -a "$records/times.txt"
fi

# Every core of the platform in the natural order of its host names: ranks fill nodes in blocks.
"$bin/sonde-simgrid-platform" "$platform" "$work/platform.json"
sed -n 's/.*"name": "\([^"]*\)", "cores": \([0-9]*\).*/\1:\2/p' "$work/platform.json" \
  >"$work/hosts.txt"
launcher="smpirun -platform $platform -hostfile $work/hosts.txt"
launcher+=" --cfg=smpi/simulate-computation:no --cfg=smpi/coll-selector:mpich"
launcher+=" --cfg=smpi/shared-malloc-blocksize:67108864 --log=root.thresh:warning"

status=0
check() {
  local name=$1 spreadsheet=$2
  shift 2
  echo "== $name under SMPI at $ranks ranks" >&2
  local started=$SECONDS
  "$bin/sonde" check "$spreadsheet" --machine "$node" --network "$network" --communication-only \
    --ranks "$ranks" --repetitions 1 --launcher "$launcher" \
    --csv "$records/$name.csv" --json "$records/$name.json" -- "$@" || status=1
  echo "$name at $ranks ranks: $((SECONDS - started)) s" | tee -a "$records/times.txt"
}
r=(--repetitions '{repetitions}')
check stencil "$(sheet "$sheets" examples/corpus/stencil/stencil)" "$bin/sonde-example-stencil-smpi" --N '{N}' \
  --K '{K}' "${r[@]}"
check cg "$(sheet "$sheets" examples/corpus/cg/cg)" "$bin/sonde-example-cg-smpi" --N '{N}' --K '{K}' "${r[@]}"
check transpose "$(sheet "$sheets" examples/corpus/transpose/transpose)" "$bin/sonde-example-transpose-smpi" \
  --N '{N}' --K '{K}' "${r[@]}"
check heat "$(sheet "$sheets" examples/heat/heat-resources)" "$bin/sonde-example-heat-smpi" --points '{N}' \
  --steps '{K}' "${r[@]}"
exit $status
