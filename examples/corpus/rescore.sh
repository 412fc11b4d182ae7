#!/usr/bin/env bash
# Today's predictor against measurements recorded before: for each record file of a folder that
# `sonde check` wrote (examples/corpus/records/<machine>/<program>.csv), or for the one record file
# given, `sonde check` predicts
# again every recorded point (its setting, from --set, and its rank count) with the same
# spreadsheet, or with SHEET where --sheet names one, and sets the recorded median beside it. Nothing
# is run. This is how a revised model (or another version of a sheet) is scored on old
# measurements, next to their first scores.
# Records of a simulated cluster keep their network profile and compare communication alone.
#   bash examples/corpus/rescore.sh [--sheet SHEET] RECORDS PROFILE [OUT FOLDER] [BUILD FOLDER]
# RECORDS: a folder of record files or one record file. Writes <out>/<program>.csv and .json
# (default rescored/ beside the records).
set -euo pipefail
cd "$(dirname "$0")/../.."
# Splits each record line into f[] by the header's column names c[] (the record files gained
# columns over time), keeping commas inside quoted fields (a setting "N=1024,BS=8,K=1"): s is the
# point's setting, empty where it ran at the spreadsheet's own sizes.
fields='NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  { line = $0; while (match(line, /"[^"]*"/)) { q = substr(line, RSTART + 1, RLENGTH - 2);
    gsub(/,/, ";", q); line = substr(line, 1, RSTART - 1) q substr(line, RSTART + RLENGTH) }
    split(line, f, ","); s = f[c["setting"]]; gsub(/;/, ",", s) }'
if [[ "${1:-}" == --recorded ]]; then
  # The "program": the recorded median of the point of record file $2 at rank count $3 whose
  # setting's values are those given as NAME=VALUE ($4 ...; compared as numbers, for sonde check
  # writes 1e3 as 1000), or whose setting is empty where none is given; as sonde check reads it.
  file=$2 n=$3
  shift 3
  awk -v n="$n" -v given="$*" -F, "$fields"'
    BEGIN { count = split(given, pairs, " "); for (i = 1; i <= count; ++i) {
      split(pairs[i], p, "="); want[p[1]] = p[2] + 0 } }
    NR > 1 && f[c["n"]] == n {
      if (count == 0) { if (s == "") print f[c["measured_median_seconds"]]; next }
      if (s == "") next
      found = split(s, own, ","); matches = 1
      for (i = 1; i <= found; ++i) { split(own[i], p, "=");
        if (!(p[1] in want) || want[p[1]] != p[2] + 0) matches = 0 }
      if (matches) print f[c["measured_median_seconds"]] }' "$file" |
    awk -v file="$file" -v n="$n" -v given="$*" '{ ++count; seconds = $0 }
      END { if (count != 1) { printf "rescore.sh: %s: %d records at n = %d with %s (expected one)\n",
              file, count, n, (given == "" ? "no setting" : given) > "/dev/stderr"; exit 1 }
            print "{\"seconds\": " seconds "}" }'
  exit 0
fi
usage='usage: rescore.sh [--sheet SHEET] RECORDS PROFILE [OUT FOLDER] [BUILD FOLDER]'
sheet=
if [[ "${1:-}" == --sheet ]]; then
  sheet=${2:?$usage}
  [[ -f "$sheet" ]] || { echo "rescore.sh: --sheet $sheet: no such file" >&2; exit 2; }
  shift 2
fi
records=${1:?$usage}
profile=${2:?$usage}
files=("$records"/*.csv)
if [[ -f "$records" ]]; then
  files=("$records")
  records=$(dirname "$records")
fi
out=${3:-$records/rescored}
build=${4:-build/release}
mkdir -p "$out"
# Column $1 of the first record of file $2, empty where absent.
field() { awk -v name="$1" -F, "$fields"'NR == 2 && c[name] { print f[c[name]] }' "$2"; }
status=0
for file in "${files[@]}"; do
  name=$(basename "$file" .csv)
  spreadsheet=${sheet:-$(field spreadsheet "$file")}
  [[ -n "$(field n "$file")" && -f "$spreadsheet" ]] || continue
  # A simulated cluster's records: the same network profile, communication alone.
  network=$(field network "$file")
  compared=$(field compared "$file")
  options=()
  [[ -n "$network" ]] && options+=(--network "$network")
  [[ "$compared" == communication ]] && options+=(--communication-only)
  # Nothing runs: the machine now is no part of a recorded median. The probes recorded beside it
  # price the prediction again in the memory state it met (P', E'), where they were taken.
  if [[ -f "$records/$name.json" && "$compared" != communication ]]; then
    options+=(--machine-now-from "$records/$name.json")
  else
    options+=(--no-probe)
  fi
  # One `sonde check` of every recorded setting (its --set) at the rank counts recorded; the
  # program it "runs" finds the record by the setting's values, which sonde check fills in.
  mapfile -t settings < <(awk -F, "$fields"'NR > 1 && !(s in seen) { seen[s]; print s }' "$file")
  ranks=$(awk -F, "$fields"'NR > 1 && !(f[c["n"]] in seen) { seen[f[c["n"]]];
    printf "%s%s", (count++ ? "," : ""), f[c["n"]] }' "$file")
  set_options=() names=()
  for setting in "${settings[@]}"; do
    [[ -n "$setting" ]] || continue
    set_options+=(--set "$setting")
    for pair in ${setting//,/ }; do
      [[ " ${names[*]} " == *" ${pair%%=*} "* ]] || names+=("${pair%%=*}")
    done
  done
  if [[ ${#set_options[@]} -gt 0 && ${#set_options[@]} -ne $((2 * ${#settings[@]})) ]]; then
    echo "rescore.sh: $file mixes points at the spreadsheet's own sizes with --set points;" \
      "rescore each kind from a folder of its own" >&2
    status=1
    continue
  fi
  placeholders=()
  for parameter in "${names[@]}"; do placeholders+=("$parameter={$parameter}"); done
  echo "== $name: $spreadsheet at n = $ranks${settings[0]:+, ${#settings[@]} settings} on" \
    "$profile ${options[*]}" >&2
  "$build/bin/sonde" check "$spreadsheet" --machine "$profile" "${options[@]}" \
    "${set_options[@]}" --ranks "$ranks" --launcher "" --csv "$out/$name.csv" \
    --json "$out/$name.json" -- \
    bash examples/corpus/rescore.sh --recorded "$file" '{n}' "${placeholders[@]}" || status=1
done
exit $status
