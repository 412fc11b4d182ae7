#!/usr/bin/env bash
# The L1 wander with the guest's steal time: cpu 0's steal (from /proc/stat, in USER_HZ ticks)
# before and after each multiply run, beside the in-core probes around it.
# bash steal-wander.sh RUNS PROBE MATMUL
set -uo pipefail
steal() { awk '$1 == "cpu0" {print $9}' /proc/stat; }
for _ in $(seq 1 "${1:-20}"); do
  before=$(taskset -c 0 "$2")
  s0=$(steal); t0=$(date +%s.%N)
  runs=$(taskset -c 0 "$3" --repetitions 3 | tr '\n' ' ')
  s1=$(steal); t1=$(date +%s.%N)
  after=$(taskset -c 0 "$2")
  echo "$before | $runs | $after | steal_ticks $((s1 - s0)) wall_s $(echo "$t1 - $t0" | bc)"
done
