#!/usr/bin/env bash
# Alternates the in-core probe with one-rank runs of the corpus's blocked multiply, all bound to
# cpu 0: each line is the probe just before, the multiply's three repetitions, the probe just after.
#   gcc -O3 -march=native -o in-core-probe in-core-probe.c
#   bash run.sh 40 > runs.txt   (from the repository root, with build/release built)
set -euo pipefail
here=$(dirname "$0")
for _ in $(seq 1 "${1:-40}"); do
  before=$(taskset -c 0 "$here/in-core-probe")
  runs=$(taskset -c 0 build/release/bin/sonde-example-matmul --repetitions 3 | tr '\n' ' ')
  after=$(taskset -c 0 "$here/in-core-probe")
  echo "$before | $runs | $after"
done
