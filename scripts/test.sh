#!/usr/bin/env bash
# Installs what is missing, checks the formatting, builds the optimized configuration (GCC) and the
# sanitizer one (address + undefined, clang) warning-free, runs their tests, and fuzzes the readers
# briefly. So the whole code is built warning-free by both compilers, and the memory kernels
# optimized by both (the sanitizer build compiles them at -O3, as clang's optimized build does). The optimized build counts with PAPI, the sanitizer
# build is built without it (SONDE_PAPI=OFF in its preset): both configurations are checked at no
# extra build. The unit tests are built and run in the sanitizer build only, a unity build
# (CMAKE_UNITY_BUILD); the optimized build runs the programs' smoke, MPI, cluster and browser
# tests. The whole run took 26.2 and 29.0 minutes from clean clones on a 2-core Zen 3 guest on
# 2026-11-28, an hour apart, with the same code (release build 8.3 and 10.1 minutes, sanitizer
# build 9.0 and 9.5, their tests 3.1 and 3.3, 2.8 and 3.0): the guest's speed drifts by more than
# the clang preset's build, left out since, took (2.2). 27.3 to 30.1 earlier that day; 20 to 29
# in the sessions before.
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
