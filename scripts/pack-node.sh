#!/usr/bin/env bash
# Packs a build's programs, the shared libraries they load and MPICH's launcher into one tarball,
# for a node where nothing can be installed (a lent machine, a compute node without the packages):
#   scripts/pack-node.sh BUILD_FOLDER OUT.tar.xz
# On the node:  tar -xJf OUT.tar.xz -C /tmp && source /tmp/sonde/env.sh  (then `sonde ...`).
# The node's own C library is used (the pack leaves out glibc, which a newer node has anyway), so
# the node needs a glibc at least as new as this machine's. The build should be MPICH's (the mpich
# preset): hydra, its launcher, needs no daemon. Build it for the node's CPU, not this one's, e.g.
#   cmake --preset mpich -B build/node -DSONDE_NATIVE=OFF -DSONDE_SMPI=OFF \
#     -DCMAKE_CXX_FLAGS=-march=x86-64-v4 -DCMAKE_C_FLAGS=-march=x86-64-v4
# On a real cluster, build against the cluster's own MPI instead (docs/usage.md, "On clusters").
set -euo pipefail
build=${1:?usage: pack-node.sh BUILD_FOLDER OUT.tar.xz}
out=${2:?usage: pack-node.sh BUILD_FOLDER OUT.tar.xz}
[[ -x "$build/bin/sonde" ]] || { echo "pack-node: no $build/bin/sonde (build it first)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/sonde
mkdir -p "$root/bin" "$root/lib"
# The programs (the test helpers and the SMPI builds stay behind).
for program in "$build"/bin/sonde "$build"/bin/sonde-bench-* "$build"/bin/sonde-example-* \
  "$build"/bin/*.so "$build"/lib/*.so*; do
  [[ -f "$program" && "$program" != *-smpi ]] || continue
  cp -a "$program" "$root/bin/"
done
# hydra starts hydra_pmi_proxy from its own folder: both go to bin/.
launchers=()
for tool in mpiexec.hydra hydra_pmi_proxy; do
  path=$(command -v "$tool" || true)
  [[ -n "$path" ]] && launchers+=("$(readlink -f "$path")")
done
for launcher in "${launchers[@]}"; do cp "$launcher" "$root/bin/"; done

# Every shared library the programs load, less the C library's own (the node's are used).
is_glibc() {
  case "$(basename "$1")" in
    ld-linux*|libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|libutil.so*) return 0 ;;
  esac
  return 1
}
# copy_libraries FILE...: the shared libraries these files load into lib/, once each.
copy_libraries() {
  for file in "$@"; do
    ldd "$file" 2>/dev/null | awk '/=> \// { print $3 }'
  done | sort -u | while read -r library; do
    is_glibc "$library" || [[ -e "$root/lib/$(basename "$library")" ]] || cp -L "$library" "$root/lib/"
  done
}
copy_libraries "$root"/bin/*
# UCX (under MPICH on Debian) loads its transports as modules at run time.
ucx_modules=$(find /usr/lib -maxdepth 3 -type d -name ucx -path '*-linux-gnu/ucx' 2>/dev/null | head -n 1)
if [[ -n "$ucx_modules" ]]; then
  mkdir -p "$root/lib/ucx"
  cp -L "$ucx_modules"/*.so* "$root/lib/ucx/" 2>/dev/null || true
  copy_libraries "$root"/lib/ucx/*
fi

cat >"$root/env.sh" <<'EOF'
# Source this file to use the packed sonde: its programs first on the PATH, its libraries found.
sonde_pack=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PATH="$sonde_pack/bin:$PATH"
export LD_LIBRARY_PATH="$sonde_pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[[ -d "$sonde_pack/lib/ucx" ]] && export UCX_MODULE_DIR="$sonde_pack/lib/ucx"
EOF
{
  echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m) from $build"
  git -C "$(dirname "$0")/.." rev-parse HEAD 2>/dev/null | sed 's/^/commit /' || true
  grep -E '^(CMAKE_CXX_FLAGS|SONDE_NATIVE|MPI_CXX_COMPILER):' "$build/CMakeCache.txt" 2>/dev/null || true
  ldd --version 2>&1 | sed -n 1p
} >"$root/PACKED"
tar -C "$stage" -cJf "$out.tmp" sonde
mv "$out.tmp" "$out"
echo "pack-node: $out ($(du -h "$out" | cut -f1)): $(ls "$root/bin" | wc -l) programs, $(ls "$root/lib" | wc -l) libraries"
