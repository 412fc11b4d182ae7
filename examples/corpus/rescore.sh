#!/usr/bin/env bash
# Today's predictor against measurements recorded before: for each record file of a folder that
# `sonde check` wrote (examples/corpus/records/<machine>/<program>.csv), `sonde check` predicts
# again with the same spreadsheet and rank counts and sets the recorded median beside it. Nothing is
# run. This is how a revised model is scored on old measurements, next to their first scores.
# Records of a simulated cluster keep their network profile and compare communication alone.
#   bash examples/corpus/rescore.sh RECORDS_FOLDER PROFILE [OUT FOLDER] [BUILD FOLDER]
# Writes <out>/<program>.csv and .json (default <records>/rescored/). Records with a --set
# (a problem size other than the spreadsheet's own) are skipped: the replay keys on n alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
# Columns by their header's names: the record files gained columns over time.
columns='NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i } '
if [[ "${1:-}" == --recorded ]]; then
  # The "program": the recorded median at rank count $3 of record file $2, as sonde check reads it.
  awk -v n="$3" -F, "$columns"'NR > 1 { line = $0; gsub(/"[^"]*"/, "Q", line); split(line, f, ",");
    if (f[c["n"]] == n && f[c["setting"]] == "") print "{\"seconds\": " f[c["measured_median_seconds"]] "}" }' "$2"
  exit 0
fi
records=${1:?usage: rescore.sh RECORDS_FOLDER PROFILE [OUT FOLDER] [BUILD FOLDER]}
profile=${2:?usage: rescore.sh RECORDS_FOLDER PROFILE [OUT FOLDER] [BUILD FOLDER]}
out=${3:-$records/rescored}
build=${4:-build/release}
mkdir -p "$out"
# Column $1 of the first record of file $2 (quoted fields may hold commas), empty where absent.
field() {
  awk -v name="$1" -F, "$columns"'NR == 2 && c[name] { line = $0; gsub(/"[^"]*"/, "Q", line);
    split(line, f, ","); print f[c[name]] }' "$2"
}
status=0
for file in "$records"/*.csv; do
  name=$(basename "$file" .csv)
  # The spreadsheet and the rank counts of the records without a --set.
  spreadsheet=$(field spreadsheet "$file")
  ranks=$(awk -F, "$columns"'NR > 1 { line = $0; gsub(/"[^"]*"/, "Q", line); split(line, f, ",");
    if (f[c["setting"]] == "") printf "%s%s", (count++ ? "," : ""), f[c["n"]] }' "$file")
  [[ -n "$ranks" && -f "$spreadsheet" ]] || continue
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
  echo "== $name: $spreadsheet at n = $ranks on $profile ${options[*]}" >&2
  "$build/bin/sonde" check "$spreadsheet" --machine "$profile" "${options[@]}" --ranks "$ranks" \
    --launcher "" --csv "$out/$name.csv" --json "$out/$name.json" -- \
    bash examples/corpus/rescore.sh --recorded "$file" '{n}' || status=1
done
exit $status
