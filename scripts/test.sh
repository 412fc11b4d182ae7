#!/usr/bin/env bash
# Installs what is missing, checks the formatting, builds the optimized and the sanitizer
# (address + undefined) configurations warning-free, and runs every test in both.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

echo "== formatting (clang-format)"
files=$(git ls-files '*.cpp' '*.hpp' 2>/dev/null || find . -name '*.cpp' -o -name '*.hpp' | grep -v ^./build)
clang-format --dry-run --Werror $files

jobs=$(nproc)
for preset in release asan; do
  echo "== build: $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "== tests: $preset"
  ctest --preset "$preset" -j "$jobs"
done
