#!/usr/bin/env bash
# Rescores the corpus checks of 2026-11-27 (the Zen 5 guest's epyc-vm-1127*, the Zen 3 guest's
# milan-vm-1127*) with two builds, nothing run again, and compares them point by point.
#   bash examples/corpus/records/ecm-saturation-1127/run.sh OLD_BUILD NEW_BUILD OUT
# (from the repository root; OLD_BUILD and NEW_BUILD are build folders, e.g. a clean clone's
# build/release at the commit before the change, and build/release).
set -euo pipefail
old=${1:?usage: run.sh OLD_BUILD NEW_BUILD OUT} new=${2:?} out=${3:?}
for d in examples/corpus/records/epyc-vm-1127* examples/corpus/records/milan-vm-1127*; do
  name=$(basename "$d")
  records=$(find "$d" -maxdepth 1 -type d -name 'v[0-9]*' | head -1)
  bash examples/corpus/rescore.sh "$records" "$d/$name.yaml" "$out/old/$name" "$old" > /dev/null 2>&1
  bash examples/corpus/rescore.sh "$records" "$d/$name.yaml" "$out/new/$name" "$new" > /dev/null 2>&1
done
python3 "$(dirname "$0")/compare.py" "$out/old" "$out/new"
