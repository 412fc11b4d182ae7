#!/bin/sh
# A stand-in for an MPI program under `sonde check`: one {"seconds": ...} line per repetition on
# its standard output, and a line that is no record before them.
#   sh fake_program.sh --repetitions R --ranks n [--seconds 0.5] [--fail-at n] [--N N --K K]
repetitions=1 ranks=1 seconds=0.5 fail_at=0
while [ $# -gt 0 ]; do
  case $1 in
    --repetitions) repetitions=$2; shift ;;
    --ranks) ranks=$2; shift ;;
    --seconds) seconds=$2; shift ;;
    --fail-at) fail_at=$2; shift ;;
    --N | --K) shift ;;
    *) echo "fake_program: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
echo "fake program: $ranks ranks, $repetitions repetitions"
if [ "$ranks" = "$fail_at" ]; then
  echo "fake program: failing at $ranks ranks, as asked" >&2
  exit 3
fi
i=0
while [ $i -lt "$repetitions" ]; do
  echo "{\"ranks\": $ranks, \"seconds\": $seconds}"
  i=$((i + 1))
done
