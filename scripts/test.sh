#!/usr/bin/env bash
# Installs what is missing, checks the formatting, builds the optimized configuration (GCC) and the
# sanitizer one (address + undefined, clang) warning-free, runs their tests, and fuzzes the readers
# briefly. So the whole code is built warning-free by both compilers, and the memory kernels
# optimized by both (the sanitizer build compiles them at -O3, as clang's optimized build does).
# The optimized build counts with PAPI, the sanitizer build is built without it (SONDE_PAPI=OFF in
# its preset): both configurations are checked at no extra build. The unit tests are built and run
# in the sanitizer build only; the optimized build runs the programs' smoke, MPI, cluster and
# browser tests. What keeps the run short on 2 cores (CMakePresets.json): both builds are unity
# builds, the optimized one but for the timed code, which it compiles file by file at -O3 and the
# rest (the suites' harness among it) at -O2; the sanitizer one compiles at -O0 but for the fits and
# the kernels. CI took 1798 s (30 minutes) on 2026-11-28 before that. From a clean clone on a 2-core
# Zen 3 guest, 2026-11-29: 1494 s at 50c132d, and 1175 s at 23930f7 once the suites' harness left
# the timed code: release build 311 s (441 in the run just before it), its tests 192, asan build 318,
# its tests 202, fuzzing 151 (a unity fuzz build was slower: its few targets compile one file each).
# On a 2-core Zen 5 guest whose clock had slowed to about 3 GHz, 2026-12-05: 1331 s at 163b34c
# (release build 302 s, its tests 277, asan build 299, its tests 319, fuzzing 134); the same
# afternoon 1355 s at 96364cd (release build 333 s, its tests 314, asan build 315, its tests 264).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

echo "== formatting (clang-format)"
files=$(git ls-files '*.cpp' '*.hpp' 2>/dev/null || find . -name '*.cpp' -o -name '*.hpp' | grep -v ^./build)
clang-format --dry-run --Werror $files

jobs=$(nproc)
started=$SECONDS
for preset in release asan; do
  echo "== build: $preset (at $((SECONDS - started)) s)"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "== tests: $preset (at $((SECONDS - started)) s)"
  ctest --preset "$preset" -j "$jobs"
done
echo "== builds and tests done (at $((SECONDS - started)) s)"

# A short fuzzing pass over every reader of user input (scripts/fuzz.sh, docs/fuzzing.md): the
# fuzz build (clang, the readers only), their kept inputs as tests, then 5 s per reader; about
# 2 1/2 minutes on 2 cores, most of it the build. Skipped with a message where clang's libFuzzer is
# missing; SONDE_FUZZ_SECONDS=0 leaves it out.
fuzz_seconds=${SONDE_FUZZ_SECONDS:-5}
if [[ "$fuzz_seconds" != 0 ]]; then
  scripts/fuzz.sh "$fuzz_seconds"
fi
