#!/usr/bin/env bash
# Characterizes machines listed in an MPI host file without a batch system: the single-node suites
# on this machine, then the MPI suite over the hosts.
#   scripts/cluster/characterize-hostfile.sh <hostfile> <ranks> [sonde characterize options]
# The host file is Open MPI's ("node1 slots=32", one line a host); with MPICH set
# SONDE_MPI=mpich and write MPICH's ("node1:32"). The checkout must sit at the same path on every
# host (a shared file system), built with cmake --preset release; SONDE_BIN runs another sonde.
# Open MPI's own settings pass through the environment (OMPI_MCA_btl_tcp_if_include=10.0.0.0/8 to
# keep it to one network, OMPI_MCA_plm_rsh_agent for a launcher other than ssh), as do Hydra's
# (HYDRA_LAUNCHER_EXEC, HYDRA_IFACE). SONDE_BIND_TO (default core) is the launcher's -bind-to /
# --bind-to: `none` where the hosts' cores are bound already.
set -euo pipefail
if [[ $# -lt 2 ]]; then
  echo "usage: $0 <hostfile> <ranks> [sonde characterize options]" >&2
  exit 2
fi
hostfile=$(realpath "$1")
ranks=$2
shift 2
cd "$(dirname "$0")/../.."
if [[ "${SONDE_MPI:-openmpi}" == "mpich" ]]; then
  launcher="mpiexec.mpich -f $hostfile -n $ranks -bind-to ${SONDE_BIND_TO:-core}"
else
  launcher="mpirun.openmpi --hostfile $hostfile -np $ranks --map-by core --bind-to ${SONDE_BIND_TO:-core}"
fi
exec "${SONDE_BIN:-build/release/bin/sonde}" characterize --mpi-launcher "$launcher" "$@"
