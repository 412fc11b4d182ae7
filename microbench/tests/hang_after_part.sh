#!/bin/sh
# A launcher that runs its command and, where the command measured a part (--out=), does not exit
# after it: as an MPI launcher whose teardown hangs once the result is written. Used by
# smoke_mpi.cmake to check that `sonde characterize` stops it and keeps the part.
"$@"
rc=$?
case "$*" in *--out=*) exec sleep 300 ;; esac
exit $rc
