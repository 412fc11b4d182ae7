#!/usr/bin/env bash
# Installs what sonde needs from Debian's packages; does nothing when all of it is there.
#   scripts/install-deps.sh               build, test and run dependencies (clang and its
#                                         libFuzzer runtime for scripts/fuzz.sh; headless chromium
#                                         and imagemagick for the datasheet's browser test; Slurm,
#                                         munge and iproute2 for the cluster recipes' tests)
#   scripts/install-deps.sh --reference   also the independent tools that scripts/compare-reference.sh
#                                         measures sonde against (likwid, linux-perf, hpcc; python3
#                                         for their tables)
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libbenchmark-dev libgtest-dev libgmock-dev
  libhwloc-dev hwloc
  libpapi-dev papi-tools
  libopenmpi-dev openmpi-bin libmpich-dev mpich
  gnuplot-nox libgnuplot-iostream-dev libboost-iostreams-dev libboost-system-dev libboost-filesystem-dev
  libeigen3-dev libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libssl-dev
  libmuparser-dev libcsv-dev valgrind
  libotf2-trace-dev otf2-tools
  libsimgrid-dev
  slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge iproute2
  clang-format
  clang libclang-rt-14-dev
  chromium imagemagick fonts-dejavu-core
)
if [[ "${1:-}" == "--reference" ]]; then
  packages+=(likwid linux-perf hpcc python3)
elif [[ $# -gt 0 ]]; then
  echo "usage: $0 [--reference]" >&2
  exit 2
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages: ${missing[*]}; run this script as root to install them" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
