#!/usr/bin/env bash
# Fits each check's raw results again with BUILD (a build with edge-into-memory.patch applied) and
# prices its recorded measurements again on that profile and on the committed one; nothing is run.
#   bash examples/corpus/records/edge-into-memory-1205/run.sh BUILD OUT RECORDS...
# e.g. run.sh build/edge /tmp/edge examples/corpus/records/epyc-vm-1205{,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r}
# Prints per check: mean / largest E (how many above 1.3) with the committed profile, then with
# the profile fitted again; then, per point over all the checks given, the geometric mean of P/T
# (spread.sh's pooled / floor) with each. Writes OUT/<check>/ (the fit), OUT/committed/<check>/v13/
# and OUT/edge/<check>/v13/ (the records priced again).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
build=${1:?usage: run.sh BUILD OUT RECORDS...}
out=${2:?usage: run.sh BUILD OUT RECORDS...}
shift 2
# A check's mean / largest E (how many above 1.3), as spread.sh scores one check.
score() { bash examples/corpus/spread.sh "$1" | awk -v n="$(basename "$1")" '$1 == n { print $2, $3, $4, $5 }'; }
for records in "$@"; do
  name=$(basename "$records")
  work=$out/$name
  rm -rf "$work"
  mkdir -p "$work"
  tar xJf "$records/raw-results.tar.xz" -C "$work"
  run=$(ls -d "$work/$name"/*/ | head -1)
  "$build/bin/sonde" fit "$run" -o "$work/$name.yaml" --machine "$name" --plots "$work/plots" \
    > "$work/fit.log" 2>&1
  bash examples/corpus/rescore.sh "$records/v13" "$records/$name.yaml" \
    "$out/committed/$name/v13" "$build" > "$work/committed.log" 2>&1
  bash examples/corpus/rescore.sh "$records/v13" "$work/$name.yaml" "$out/edge/$name/v13" \
    "$build" > "$work/edge.log" 2>&1
  echo "$name: committed $(score "$out/committed/$name"), with the edge $(score "$out/edge/$name")"
done
for rule in committed edge; do
  echo
  echo "per point over the checks, $rule: pooled / floor is the geometric mean of P/T"
  folders=()
  for records in "$@"; do folders+=("$out/$rule/$(basename "$records")"); done
  bash examples/corpus/spread.sh "${folders[@]}" | sed -n '1,/^$/p;/^mean over checks/p' | cut -c1-100
done
