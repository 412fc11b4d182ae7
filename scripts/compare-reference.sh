#!/usr/bin/env bash
# Measures sonde's memory figures next to independent tools, alternating them for ROUNDS rounds in
# one session on one machine, and prints the comparison (also written to its output folder):
#   bandwidth: likwid-bench (Debian's likwid), kernel for kernel with regular stores: sonde copy
#              against likwid copy, triad against likwid stream (a = b + s*c), write against store,
#              read (a sum) against load (loads alone); DRAM-sized, 1 thread and all cores; each
#              sonde measurement right after the likwid one it is compared with.
#   latency:   scripts/reference/lat_mem_rd_like.c, lmbench's lat_mem_rd method (lmbench is not in
#              Debian), at one size per level, pattern for pattern with 4 KiB pages: random over the
#              whole working set, and random within each page; lmbench's own bit-reversed layout is
#              shown beside them for context.
#   overheads: `perf bench sched pipe` (Debian's linux-perf) pinned to one core against sonde's
#              context switch, and across two cores against sonde's pipe latency.
#   peak rate: likwid-bench's peakflops kernels (FMA, AVX-512 and AVX) against sonde's peak FMA
#              kernels, 1 thread and all cores.
# Environment: SECTIONS (memory,overhead,compute), ROUNDS (5), L1_BYTES, L2_BYTES, L3_BYTES, DRAM_BYTES (defaults from hwloc: a third
# of L1d, a quarter of L2, twice L2, eight times the whole last level).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh --reference
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" >/dev/null
mkdir -p build/reference
gcc -O2 -std=c11 -Wall -Wextra -o build/reference/lat_mem_rd_like scripts/reference/lat_mem_rd_like.c

rounds=${ROUNDS:-5}
sections=${SECTIONS:-memory,overhead,compute}
want() { [[ ",$sections," == *",$1,"* ]]; }
read -r line l1d l2d llc < <(build/release/bin/sonde topology --json | python3 -c '
import json, sys
caches = [c for c in json.load(sys.stdin)["caches"] if c["kind"] != "instruction"]
print(caches[0]["line_bytes"], caches[0]["size_bytes"], caches[1]["size_bytes"],
      caches[-1]["size_bytes"] * caches[-1]["instances"])')
l1=${L1_BYTES:-$(( l1d / 3 / line * line ))}
l2=${L2_BYTES:-$(( l2d / 4 / line * line ))}
l3=${L3_BYTES:-$(( l2d * 2 ))}
dram=${DRAM_BYTES:-$(( llc * 8 ))}
cores=$(nproc)
suffix=""
grep -q avx512f /proc/cpuinfo && suffix="_avx512" || { grep -q ' avx ' /proc/cpuinfo && suffix="_avx"; }
out="results/reference/$(hostname)-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
bench=build/release/bin/sonde-bench-memory
bench_overhead=build/release/bin/sonde-bench-overhead
bench_compute=build/release/bin/sonde-bench-compute
echo "compare-reference: sizes L1 $l1, L2 $l2, L3 $l3, DRAM $dram bytes; $rounds rounds; into $out" >&2

for round in $(seq "$rounds"); do
  echo "compare-reference: round $round of $rounds" >&2
  if want memory; then
  taskset -c 0 build/reference/lat_mem_rd_like -l "$line" "$l1" "$l2" "$l3" "$dram" \
    >"$out/ref-latency-lmbench-$round.txt"
  taskset -c 0 build/reference/lat_mem_rd_like -r -l "$line" "$l1" "$l2" "$l3" "$dram" \
    >"$out/ref-latency-random-$round.txt"
  taskset -c 0 build/reference/lat_mem_rd_like -p -l "$line" "$l1" "$l2" "$l3" "$dram" \
    >"$out/ref-latency-in_page-$round.txt"
  "$bench" --sizes "$l1,$l2,$l3,$dram" --part latency-random-base,latency-in-page-base \
    --out "$out/sonde-latency-$round.json" 2>/dev/null >/dev/null
  for threads in 1 "$cores"; do
    for pair in copy:copy triad:stream write:store read:load; do
      kernel=${pair%%:*} likwid=${pair##*:}
      likwid-bench -t "$likwid$suffix" -w "S0:$((dram / 1000000))MB:$threads" \
        >"$out/likwid-$likwid-t$threads-$round.txt" 2>&1
      # About as long as likwid-bench measures (a second), so both see the same machine state.
      "$bench" --sizes "$dram" --threads "$threads" --part "bandwidth-t$threads" --min-time 0.2 \
        --benchmark_filter="bandwidth\.$kernel/" \
        --out "$out/sonde-bandwidth-$kernel-t$threads-$round.json" 2>/dev/null >/dev/null
    done
  done
  fi
  if want overhead; then
  taskset -c 0 perf bench sched pipe -l 100000 >"$out/perf-pipe-one-core-$round.txt" 2>&1
  [ "$cores" -gt 1 ] && taskset -c 0,1 perf bench sched pipe -l 20000 >"$out/perf-pipe-two-cores-$round.txt" 2>&1
  "$bench_overhead" --part pipe --out "$out/sonde-overhead-$round.json" 2>/dev/null >/dev/null
  fi
  if want compute; then
  for threads in 1 "$cores"; do
    for unit in avx512 avx; do
      grep -q "${unit/avx512/avx512f}" /proc/cpuinfo || continue
      likwid-bench -t "peakflops_${unit}_fma" -w "S0:24kB:$threads" >"$out/likwid-peak-$unit-t$threads-$round.txt" 2>&1
    done
  done
  "$bench_compute" --part peak --out "$out/sonde-peak-$round.json" 2>/dev/null >/dev/null
  fi
done

if want overhead || want compute; then
python3 - "$out" "$rounds" "$cores" <<'PY' | tee "$out/comparison-overhead-compute.md"
import glob, json, re, statistics, sys
out, rounds, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
med = statistics.median
ok = True

def perf(pattern):
    values = []
    for path in glob.glob(f"{out}/{pattern}"):
        m = re.search(r"([0-9.]+) usecs/op", open(path).read())
        if m: values.append(float(m.group(1)))
    return values

def sonde(pattern, select, counter):
    values = []
    for path in glob.glob(f"{out}/{pattern}"):
        for b in json.load(open(path))["benchmarks"]:
            if b.get("aggregate_name") == "median" and select(b["params"]):
                values.append(b[counter])
    return values

print("\n| overhead | sonde us | perf bench sched pipe us | sonde / perf |")
print("|---|---|---|---|")
rows = [("context switch (round trip, one core)", "perf-pipe-one-core-*.txt", "context_switch")]
if cores > 1:
    rows.append(("pipe round trip (two cores)", "perf-pipe-two-cores-*.txt", "pipe_latency"))
for label, pattern, operation in rows:
    if not glob.glob(f"{out}/{pattern}"): continue
    s = med(sonde("sonde-overhead-*.json", lambda p: p["operation"] == operation,
                  "seconds_per_round_trip")) * 1e6
    r = med(perf(pattern))
    within = abs(s / r - 1) <= 0.10
    ok &= within
    print(f"| {label} | {s:.2f} | {r:.2f} | {s / r:.3f}{'' if within else ' (outside 10%)'} |")

print("\n| peak rate | threads | sonde Gflop/s | likwid-bench Gflop/s | sonde / likwid |")
print("|---|---|---|---|---|")
for unit, sonde_unit in [("avx512", "avx512"), ("avx", "avx2-fma")]:
    for threads in sorted({1, cores}):
        ref = []
        for path in glob.glob(f"{out}/likwid-peak-{unit}-t{threads}-*.txt"):
            m = re.search(r"^MFlops/s:\s+([0-9.]+)", open(path).read(), re.M)
            if m: ref.append(float(m.group(1)) / 1e3)
        mine = sonde("sonde-peak-*.json", lambda p: p["unit"] == sonde_unit and p["threads"] == threads,
                     "flops_per_second")
        if not ref or not mine: continue
        s, r = med(mine) / 1e9, med(ref)
        within = abs(s / r - 1) <= 0.10
        ok &= within
        print(f"| {sonde_unit} vs peakflops_{unit}_fma | {threads} | {s:.1f} | {r:.1f} | {s / r:.3f}{'' if within else ' (outside 10%)'} |")
print("\nall criteria met" if ok else "\nsome criteria NOT met (see the marked rows)")
PY

fi

if want memory; then
python3 - "$out" "$rounds" "$cores" "$l1" "$l2" "$l3" "$dram" <<'PY' | tee "$out/comparison-memory.md"
import glob, json, re, statistics, sys
out, rounds, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sizes = dict(zip(["L1", "L2", "L3", "DRAM"], map(int, sys.argv[4:8])))
med = statistics.median

print(f"Compared on {open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()},"
      f" {cores} cores; median of {rounds} alternating rounds\n")
print("| latency (ns per load) | size | sonde | reference | sonde / reference |")
print("|---|---|---|---|---|")
ok = True
for variant, ref_name, label, criterion in [
        ("random", "random", "random vs random", True),
        ("in_page", "in_page", "in-page vs in-page", True),
        ("in_page", "lmbench", "in-page vs lmbench's bit-reversed layout", False)]:
    ref = {}
    for path in glob.glob(f"{out}/ref-latency-{ref_name}-*.txt"):
        for line in open(path):
            size, ns = line.split()
            ref.setdefault(int(size), []).append(float(ns))
    mine = {}
    for path in glob.glob(f"{out}/sonde-latency-*.json"):
        for b in json.load(open(path))["benchmarks"]:
            p = b["params"]
            if b.get("aggregate_name") == "median" and p["pattern"] == variant:
                mine.setdefault(p["working_set_bytes"], []).append(b["seconds_per_load"] * 1e9)
    for level, size in sizes.items():
        s, r = med(mine[size]), med(ref[size])
        within = abs(s / r - 1) <= 0.10
        if criterion: ok &= within
        note = "" if within or not criterion else " (outside 10%)"
        print(f"| {level}, {label} | {size} B | {s:.2f} | {r:.2f} | {s / r:.3f}{note} |")

print("\n| bandwidth, DRAM-sized | threads | sonde GB/s | likwid-bench GB/s | sonde / likwid |")
print("|---|---|---|---|---|")
for kernel, likwid in [("copy", "copy"), ("triad", "stream"), ("write", "store"), ("read", "load")]:
    for threads in sorted({1, cores}):
        ref = []
        for path in glob.glob(f"{out}/likwid-{likwid}-t{threads}-*.txt"):
            m = re.search(r"^MByte/s:\s+([0-9.]+)", open(path).read(), re.M)
            if m: ref.append(float(m.group(1)) / 1e3)
        mine = []
        for path in glob.glob(f"{out}/sonde-bandwidth-{kernel}-t{threads}-*.json"):
            for b in json.load(open(path))["benchmarks"]:
                p = b["params"]
                if b.get("aggregate_name") == "median" and p["kernel"] == kernel and p["threads"] == threads:
                    mine.append(b["bytes_per_second"] / 1e9)
        s, r = med(mine), med(ref)
        need = kernel in ("copy", "triad")
        good = s / r >= 0.95
        if need: ok &= good
        print(f"| {kernel} vs {likwid} | {threads} | {s:.1f} | {r:.1f} | {s / r:.3f}{'' if good or not need else ' (below 95%)'} |")
print("\nall criteria met" if ok else "\nsome criteria NOT met (see the marked rows)")
PY
fi
