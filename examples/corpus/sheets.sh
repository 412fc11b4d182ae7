# Sourced by check.sh and simulated.sh: which version of a program's spreadsheet to take.
# sheet VERSION BASE prints BASE-vK.csv for the largest K <= VERSION's number that exists (v2 and
# later sit beside each first sheet), else BASE.csv; VERSION is v1, v2, ...
sheet() {
  local version=$1 base=$2 k
  [[ "$version" =~ ^v[1-9][0-9]*$ ]] || { echo "sheets: version '$version'; expected v1, v2, ..." >&2; return 2; }
  for ((k = ${version#v}; k > 1; k--)); do
    [[ -f "$base-v$k.csv" ]] && { echo "$base-v$k.csv"; return; }
  done
  echo "$base.csv"
}
