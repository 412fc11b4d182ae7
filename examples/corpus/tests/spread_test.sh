#!/usr/bin/env bash
# spread.sh on two made-up checks with answers worked out by hand: stream at 1 rank measured 1 s
# and 4 s, predicted 3 s and 12 s (floor: the measurements' geometric mean, 2 s; pooled, and so far
# at the second check: the predictions', 6 s); cg at 2 ranks 2 s measured and predicted both
# times. Left out: a stream_threads file, a row with a --set, and a point only one check has.
# E' takes a record's prediction in the state its probes saw where it has one: check a's stream
# 2 s (E' 2), nowhere else (E' as E): a 1.5 / 2, b 2 / 3, over both 1.75.
# Then one check alone (stream E 3, cg 1, heat 5: mean 3, largest 5, two above 1.3; E' 2, 1, 5).
set -euo pipefail
spread=$(cd "$(dirname "$0")/.." && pwd)/spread.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
header='spreadsheet,n,setting,predicted_seconds,measured_median_seconds,predicted_in_state_now_seconds,notes'
record() {  # check program n predicted measured [setting [predicted in the state now]]
  mkdir -p "$work/$1/v13"
  local file="$work/$1/v13/$2.csv"
  [[ -f "$file" ]] || echo "$header" > "$file"
  echo "sheet.csv,$3,${6:-},$4,$5,${7:-},\"a note, with commas\"" >> "$file"
}
record a stream 1 3 1 "" 2
record a stream 1 9 9 N=10
record a cg 2 2 2
record a heat 1 5 1
record a stream_threads-n1 1 9 1
record b stream 1 12 4
record b cg 2 2 2
record b stream_threads-n1 1 9 1
out=$(bash "$spread" "$work/a" "$work/b")
expected='program            n  measured max/min   predicted max/min  pooled / floor
cg                 2  1.00               1.00               1.00
stream             1  4.00               4.00               3.00
left out (not in every check): heat 1

check                fresh mean/max (>1.3)  E'\'' mean/max      so far mean/max  pooled mean/max  floor mean/max  
a                    2.000 / 3.00 (1)       1.500 / 2.00     2.000 / 3.00     3.500 / 6.00     1.500 / 2.00    
b                    2.000 / 3.00 (1)       2.000 / 3.00     1.250 / 1.50     1.250 / 1.50     1.500 / 2.00    
mean over checks     2.000                  1.750            1.625            2.375            1.500           '
if [[ "$out" != "$expected" ]]; then
  echo "spread.sh printed:"; echo "$out"; echo "expected:"; echo "$expected"
  exit 1
fi
# One check alone is scored alone: every point of it counts (heat too), its floor is itself.
out=$(bash "$spread" "$work/a")
[[ "$out" == *"a                    3.000 / 5.00 (2)       2.667 / 5.00     3.000 / 5.00     3.000 / 5.00     1.000 / 1.00"* ]] ||
  { echo "spread.sh on one check printed:"; echo "$out"; exit 1; }
# A folder without the sheets' records is an error naming it.
if message=$(bash "$spread" "$work/a" "$work/none" 2>&1); then
  echo "spread.sh accepted a folder without records"; exit 1
fi
[[ "$message" == *"$work/none/v13: no such folder"* ]] || { echo "unexpected message: $message"; exit 1; }
# Checks with no point in common are an error, not a division by zero.
record c heat 1 5 1
if message=$(bash "$spread" "$work/b" "$work/c" 2>&1); then
  echo "spread.sh accepted checks with no point in common"; exit 1
fi
[[ "$message" == *"no point is in every check"* ]] || { echo "unexpected message: $message"; exit 1; }
echo "spread.sh: as worked out by hand"
