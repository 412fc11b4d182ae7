#!/usr/bin/env bash
# How far the corpus's own times move between checks on one machine, against how far the
# predictions miss. Reads the records of several checks (examples/corpus/records/<name>/<sheets>/,
# what check.sh wrote: one profile and one set of measurements each), takes the points every check
# has (program and rank count, the spreadsheet's own size; stream_threads left out, as in the E
# tables of docs/validation.md), and prints per point the measured medians' and the predictions'
# largest over smallest, and per check the mean and largest E of three predictions:
#   fresh:  the check's own prediction (its profile, characterized just before it): the real score;
#   so far: the geometric mean of the predictions of this check and the checks before it, in the
#           order given: what pooling the profiles at hand then would have predicted;
#   pooled: the geometric mean of every check's prediction of the point (all the profiles at once,
#           later ones too: hindsight);
#   floor:  the geometric mean of every check's measurement of the point. No model can do better
#           on average with one number per point; it knows every measurement, so it is a bound on
#           what the machine's own variation allows, not a prediction.
# Per point, pooled / floor is the model's own bias there with the profiles' noise averaged out
# (below 1: priced too fast).
# Beside fresh, E' is the check's own prediction priced again in the memory state its probes saw
# around each point's runs (predicted_in_state_now_seconds; the prediction itself where a record
# has none): how far the model missed once the machine's state is known.
# Given one check, it scores that check alone (its so far and pooled are then its fresh, its floor
# the measurements themselves).
# Nothing is run.
#   bash examples/corpus/spread.sh [--sheets v13] RECORDS_FOLDER [RECORDS_FOLDER...]
set -euo pipefail
cd "$(dirname "$0")/../.."
sheets=v13
if [[ "${1:-}" == --sheets ]]; then
  sheets=${2:?usage: spread.sh [--sheets VERSION] RECORDS_FOLDER [RECORDS_FOLDER...]}
  shift 2
fi
(($# >= 1)) || { echo "usage: spread.sh [--sheets VERSION] RECORDS_FOLDER [RECORDS_FOLDER...]" >&2; exit 2; }
files=()
for folder in "$@"; do
  [[ -d "$folder/$sheets" ]] || { echo "spread.sh: $folder/$sheets: no such folder" >&2; exit 2; }
  for file in "$folder/$sheets"/*.csv; do
    [[ "$(basename "$file")" == stream_threads* ]] || files+=("$file")
  done
done
# One line per record: check, program, n, measured median, prediction, prediction in the state the
# probes saw (the prediction where the record has none).
for file in "${files[@]}"; do
  awk -v check="$(basename "$(dirname "$(dirname "$file")")")" \
    -v program="$(basename "$file" .csv)" -v file="$file" -F, '
    NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i
              if (!c["n"] || !c["setting"] || !c["measured_median_seconds"] || !c["predicted_seconds"]) {
                print file ": lacks n, setting, measured_median_seconds or predicted_seconds" > "/dev/stderr"
                exit 2 } }
    NR > 1 { line = $0; gsub(/"[^"]*"/, "Q", line); split(line, f, ",")
             now = c["predicted_in_state_now_seconds"] ? f[c["predicted_in_state_now_seconds"]] : ""
             if (f[c["setting"]] == "" && f[c["measured_median_seconds"]] > 0 && f[c["predicted_seconds"]] > 0)
               print check, program, f[c["n"]], f[c["measured_median_seconds"]], f[c["predicted_seconds"]],
                     (now > 0 ? now : f[c["predicted_seconds"]]) }' "$file"
done | awk -v checks=$# '
  function e(a, b) { return a > b ? a / b : b / a }
  { key = $2 " " $3; measured[$1, key] = $4; predicted[$1, key] = $5; in_state[$1, key] = $6
    if (!($1 in seen)) { seen[$1] = 1; order[++ncheck] = $1 }
    if (!(key in have)) { keys[++nkey] = key }
    have[key]++ }
  END {
    if (ncheck != checks) { print "spread.sh: " checks " folders, " ncheck " of them with records" > "/dev/stderr"; exit 2 }
    printf "%-16s %3s  %-18s %-18s %s\n", "program", "n", "measured max/min", "predicted max/min", "pooled / floor"
    for (k = 1; k <= nkey; ++k) {
      key = keys[k]
      if (have[key] != ncheck) { skipped = skipped " " key; continue }
      common[key] = 1; ++ncommon
      lm = lp = 0; mmin = pmin = 1e300; mmax = pmax = 0
      for (i = 1; i <= ncheck; ++i) {
        m = measured[order[i], key]; p = predicted[order[i], key]
        lm += log(m); lp += log(p)
        if (m < mmin) mmin = m; if (m > mmax) mmax = m
        if (p < pmin) pmin = p; if (p > pmax) pmax = p
      }
      floor_of[key] = exp(lm / ncheck); pooled_of[key] = exp(lp / ncheck)
      split(key, part, " ")
      printf "%-16s %3s  %-18.2f %-18.2f %.2f\n", part[1], part[2], mmax / mmin, pmax / pmin,
             pooled_of[key] / floor_of[key]
    }
    if (skipped != "") print "left out (not in every check):" skipped
    if (!ncommon) { print "spread.sh: no point is in every check" > "/dev/stderr"; exit 2 }
    printf "\n%-20s %-22s %-16s %-16s %-16s %-16s\n", "check", "fresh mean/max (>1.3)", "E\047 mean/max",
           "so far mean/max", "pooled mean/max", "floor mean/max"
    for (i = 1; i <= ncheck; ++i) {
      sf = sn = ss = sp = sl = 0; xf = xn = xs = xp = xl = 0; above = 0
      for (key in common) {
        m = measured[order[i], key]
        ls = 0
        for (j = 1; j <= i; ++j) ls += log(predicted[order[j], key])
        ef = e(predicted[order[i], key], m); en = e(in_state[order[i], key], m); es = e(exp(ls / i), m)
        ep = e(pooled_of[key], m); el = e(floor_of[key], m)
        sf += ef; sn += en; ss += es; sp += ep; sl += el; if (ef > 1.3) ++above
        if (ef > xf) xf = ef; if (en > xn) xn = en; if (es > xs) xs = es; if (ep > xp) xp = ep
        if (el > xl) xl = el
        tf += ef; tn += en; ts += es; tp += ep; tl += el
      }
      printf "%-20s %-22s %-16s %-16s %-16s %-16s\n", order[i], sprintf("%.3f / %.2f (%d)", sf / ncommon, xf, above),
             sprintf("%.3f / %.2f", sn / ncommon, xn), sprintf("%.3f / %.2f", ss / ncommon, xs),
             sprintf("%.3f / %.2f", sp / ncommon, xp), sprintf("%.3f / %.2f", sl / ncommon, xl)
    }
    printf "%-20s %-22.3f %-16.3f %-16.3f %-16.3f %-16.3f\n", "mean over checks", tf / (ncommon * ncheck),
           tn / (ncommon * ncheck), ts / (ncommon * ncheck), tp / (ncommon * ncheck), tl / (ncommon * ncheck)
  }'
