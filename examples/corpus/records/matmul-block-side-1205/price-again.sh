#!/usr/bin/env bash
# Prices recorded measurements of the multiply again with another of its sheets (nothing runs): for
# each point (setting, n) of a record file `sonde check` wrote, `sonde check SHEET` predicts it on
# PROFILE and sets the recorded median beside it, so that two sheets are scored on the same runs.
#   bash examples/corpus/records/matmul-block-side-1205/price-again.sh RECORD.csv SHEET PROFILE OUT.csv
# RECORD.csv's points need a setting (--set).
set -euo pipefail
cd "$(dirname "$0")/../../../.."
# Splits each record line into f[] by the header's column names c[], keeping commas inside quoted
# fields (a setting "N=1024,BS=8,K=1"); s is the point's setting.
fields='NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
  { line = $0; while (match(line, /"[^"]*"/)) { q = substr(line, RSTART + 1, RLENGTH - 2);
    gsub(/,/, ";", q); line = substr(line, 1, RSTART - 1) q substr(line, RSTART + RLENGTH) }
    split(line, f, ","); s = f[c["setting"]]; gsub(/;/, ",", s) }'
if [[ "${1:-}" == --recorded ]]; then
  # The "program": the recorded median of point ($3, n = $4) of record file $2.
  awk -v setting="$3" -v n="$4" -F, "$fields"'
    NR > 1 && s == setting && f[c["n"]] == n { print "{\"seconds\": " f[c["measured_median_seconds"]] "}" }' "$2"
  exit 0
fi
record=${1:?usage: price-again.sh RECORD.csv SHEET PROFILE OUT.csv}
sheet=${2:?usage: price-again.sh RECORD.csv SHEET PROFILE OUT.csv}
profile=${3:?usage: price-again.sh RECORD.csv SHEET PROFILE OUT.csv}
out=${4:?usage: price-again.sh RECORD.csv SHEET PROFILE OUT.csv}
rm -f "$out"
points=$(awk -F, "$fields"' NR > 1 { print s " " f[c["n"]] }' "$record")
while read -r setting n; do
  [[ -n "$setting" ]] || { echo "price-again.sh: $record has a point without a setting" >&2; exit 2; }
  build/release/bin/sonde check "$sheet" --machine "$profile" --ranks "$n" --set "$setting" \
      --repetitions 1 --no-probe --launcher "" --csv "$out.part.csv" \
      -- bash "$0" --recorded "$record" "$setting" "$n" > /dev/null
  if [[ -f "$out" ]]; then tail -n +2 "$out.part.csv" >> "$out"; else cp "$out.part.csv" "$out"; fi
  rm -f "$out.part.csv"
done <<< "$points"
