#!/usr/bin/env bash
# Fuzzes every reader of user input for a bounded time (docs/fuzzing.md):
#   scripts/fuzz.sh [seconds-per-target] [target...]      (default: 60 s; every target)
# Configures and builds the fuzz preset (clang++, libFuzzer, the address and undefined-behaviour
# sanitizers; the readers only), runs the kept inputs once (ctest --preset fuzz), then fuzzes each
# target on a copy of its seeds (fuzz/corpus/<target>) in build/fuzz/scratch/, so that the
# repository's corpus is not flooded. Prints per target the seconds run, the executions, the
# corpus before and after, and the crashes found (kept in build/fuzz/findings/<target>/, logs in
# build/fuzz/logs/). Exits 1 when a kept input fails or a target found a crash; exits 0 with a
# message, fuzzing nothing, where clang++ or its libFuzzer runtime is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [seconds-per-target] [target...]" >&2
  exit 2
fi
shift $(($# > 0 ? 1 : 0))
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(profile workload counters results units)
fi

# libFuzzer comes with clang (Debian: clang, and libclang-rt-14-dev for its runtime): without a
# compiler that links a fuzzer with the sanitizers there is nothing to run.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: skipped: clang++ not found (Debian: apt-get install clang libclang-rt-14-dev)"
  exit 0
fi
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' \
  >"$probe/probe.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" \
  2>"$probe/error"; then
  echo "fuzz: skipped: clang++ cannot link a libFuzzer target (Debian: apt-get install" \
    "libclang-rt-14-dev): $(head -n 1 "$probe/error")"
  exit 0
fi

echo "== fuzz: build (preset fuzz)"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${SONDE_FUZZ_JOBS:-$(nproc)}"
echo "== fuzz: the kept inputs (regressions and seeds)"
ctest --preset fuzz -j "${SONDE_FUZZ_JOBS:-$(nproc)}"

build=build/fuzz
mkdir -p "$build/logs"
found=0
summary=()
for target in "${targets[@]}"; do
  binary="$build/bin/sonde-fuzz-$target"
  if [[ ! -x "$binary" || ! -d "fuzz/corpus/$target" ]]; then
    echo "fuzz: no target '$target' (targets: profile workload counters results units)" >&2
    exit 2
  fi
  scratch="$build/scratch/$target"
  findings="$build/findings/$target"
  log="$build/logs/$target.log"
  rm -rf "$scratch"
  mkdir -p "$scratch" "$findings"
  cp -r "fuzz/corpus/$target/." "$scratch/"
  seeds=$(find "$scratch" -type f | wc -l)
  before=$(find "$findings" -type f | wc -l)
  echo "== fuzz: $target for ${seconds} s"
  start=$(date +%s.%N)
  status=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$binary" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$scratch" >"$log" 2>&1 || status=$?
  elapsed=$(awk -v start="$start" -v end="$(date +%s.%N)" 'BEGIN { print end - start }')
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  if [[ -z "$executions" ]]; then
    # A crash ends the run before the final statistics: the last status line's count.
    executions=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
  fi
  corpus=$(find "$scratch" -type f | wc -l)
  crashes=$(($(find "$findings" -type f | wc -l) - before))
  if [[ $status -ne 0 && $crashes -eq 0 ]]; then
    crashes=1  # failed without leaving an input (see the log)
  fi
  if [[ $crashes -gt 0 ]]; then
    found=1
    echo "fuzz: $target found a crash: $log; inputs in $findings/"
    grep -m 3 -E "ERROR|invariant broken|runtime error|uncaught" "$log" || true
  fi
  summary+=("$(printf '%-10s %8.0f %12s %8s %8s %8s' "$target" "$elapsed" "${executions:-?}" \
    "$seeds" "$corpus" "$crashes")")
done

echo "== fuzz: summary ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores)"
printf '%-10s %8s %12s %8s %8s %8s\n' target seconds executions seeds corpus crashes
printf '%s\n' "${summary[@]}"
if [[ $found -ne 0 ]]; then
  echo "fuzz: crashes found; each input is in build/fuzz/findings/<target>/ (docs/fuzzing.md says" \
    "how to keep it as a regression)"
  exit 1
fi
