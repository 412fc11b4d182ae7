#!/usr/bin/env bash
# The Slurm recipe on a one-node Slurm cluster set up on this machine: a munge daemon with its own
# key and socket, slurmctld and slurmd with a configuration of their own (ports, spool, state and
# logs in the work folder; the machine's /etc/slurm and /etc/munge are not touched), then
#   1. sbatch scripts/cluster/characterize.sbatch (the batch recipe, 2 tasks),
#   2. sonde characterize --mpi-launcher "srun ..." (srun starting the MPI suite from outside an
#      allocation, as a user at a login node would),
# and checks that each wrote a profile of 2 ranks with a ping-pong fit and collectives, and that the
# batch run is named after its job. Exits 77 (CTest's SKIP_RETURN_CODE) with the reason where Slurm
# cannot be started here (not root, a package missing, no PMIx or PMI-2 plugin, a daemon that does
# not come up): that is a test not run, not a test passed.
#   slurm_test.sh <sonde> <work folder> [openmpi | mpich: the MPI sonde was built with]
set -euo pipefail

sonde=$(realpath "$1")
work=$2
flavor=${3:-openmpi}
# How the ranks meet: Open MPI through PMIx, MPICH through PMI-2 (Slurm's mpi plugins).
mpi_plugin=pmix
[[ $flavor == mpich ]] && mpi_plugin=pmi2
repo=$(cd "$(dirname "$0")/../../.." && pwd)

skip() {
  echo "SKIPPED: $*"
  exit 77
}

[[ $(id -u) == 0 ]] || skip "slurmctld and slurmd need root to run jobs as another user; run as root"
for tool in slurmctld slurmd sbatch srun sinfo scontrol munged mungekey; do
  command -v "$tool" >/dev/null 2>&1 ||
    skip "$tool is not installed (scripts/install-deps.sh installs slurm-wlm and munge)"
done

rm -rf "$work"
mkdir -p "$work"/{munge,state,spool,log}
chmod 700 "$work/munge"

# Ports of our own, so that a Slurm already on this machine is left alone.
port=$((20000 + ($$ % 4000) * 2))
host=$(hostname -s)

cleanup() {
  set +e
  [[ -n "${SLURM_CONF:-}" ]] && scontrol shutdown >/dev/null 2>&1
  sleep 1
  for pid_file in "$work/slurmctld.pid" "$work/slurmd.pid" "$work/munge/munged.pid"; do
    [[ -f "$pid_file" ]] && kill "$(cat "$pid_file")" 2>/dev/null
  done
}
trap cleanup EXIT

mungekey --create --keyfile="$work/munge/munge.key"
chmod 600 "$work/munge/munge.key"
# --force: munged refuses root and a key outside /etc/munge without it.
munged --force --socket="$work/munge/socket" --key-file="$work/munge/munge.key" \
  --log-file="$work/log/munged.log" --pid-file="$work/munge/munged.pid" \
  --seed-file="$work/munge/seed" ||
  skip "munged did not start: $(tail -3 "$work/log/munged.log" 2>/dev/null)"

# The node as slurmd sees it (sockets, cores, memory), reachable on the loopback.
node=$(slurmd -C | head -1)
cat >"$work/slurm.conf" <<EOF
ClusterName=sonde-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=$mpi_plugin
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
srun --mpi=list 2>&1 | grep -q "$mpi_plugin" ||
  skip "this Slurm has no $mpi_plugin plugin (srun --mpi=list), which $flavor's ranks need to meet"
slurmctld -f "$SLURM_CONF" || skip "slurmctld did not start: $(tail -3 "$work/log/slurmctld.log")"
slurmd -f "$SLURM_CONF" || skip "slurmd did not start: $(tail -3 "$work/log/slurmd.log")"
for _ in $(seq 60); do
  [[ "$(sinfo -h -o %T 2>/dev/null)" == idle ]] && break
  sleep 0.5
done
[[ "$(sinfo -h -o %T 2>/dev/null)" == idle ]] ||
  skip "the node did not come up idle: $(sinfo -h 2>&1); $(tail -3 "$work/log/slurmd.log")"
echo "one-node Slurm up: $(sinfo -h)"

fail() {
  echo "FAILED: $*" >&2
  for log in "$work"/log/*.log "$work"/sbatch-*.log; do
    [[ -f "$log" ]] && { echo "--- $log" >&2; tail -20 "$log" >&2; }
  done
  exit 1
}

# The profile has 2 ranks, a fitted ping-pong and collectives at n = 2.
check_profile() {
  local profile=$1
  [[ -f "$profile" ]] || fail "no profile at $profile"
  grep -q '^point_to_point:' "$profile" || fail "$profile has no point_to_point"
  grep -q 'note: Hockney t0 of this segment' "$profile" || fail "$profile has no ping-pong fit"
  grep -q 'mpi.collective.allreduce/ranks:2/' "$profile" || fail "$profile has no allreduce at n = 2"
  echo "profile: $profile"
}

common=(--quick --suite mpi --results "$work/results" --profiles "$work/machines")

# 1. The batch recipe, submitted from the checkout as its header says.
cd "$repo"
SONDE_BIN=$sonde SONDE_MACHINE=slurm-batch sbatch --wait --nodes=1 --ntasks=2 \
  --output="$work/sbatch-%j.log" scripts/cluster/characterize.sbatch "${common[@]}" ||
  fail "the batch job failed"
job_log=$(ls "$work"/sbatch-*.log)
job=${job_log##*/sbatch-}
job=${job%.log}
[[ -d "$work/results/slurm-batch/slurm-$job" ]] || fail "no run folder slurm-$job for job $job"
check_profile "$work/machines/slurm-batch.yaml"

# 2. srun as the launcher, from outside an allocation.
"$sonde" characterize "${common[@]}" --machine slurm-srun \
  --mpi-launcher "srun --ntasks=2 --cpu-bind=cores" >"$work/srun.log" 2>&1 ||
  fail "characterize with srun failed: $(tail -5 "$work/srun.log")"
check_profile "$work/machines/slurm-srun.yaml"
echo "PASSED: sbatch (job $job) and srun each wrote a profile of 2 ranks"
