#!/bin/sh
# MPI test programs across emulated hosts.
# usage: t_mpi.sh NHOSTS "LAYOUT PROG [NAME=VALUE]... [ARG]..." ...
# Builds hosts h1..hNHOSTS once (scripts/lc-hosts, torn down on exit,
# failure, interruption or kill), then runs each job in them with mpiexec
# on h1 (-hosts LAYOUT, e.g. h1:2,h2:1: ranks 0-1 on h1, rank 2 on h2), so
# one job mixes shared-memory peers (same host) and network peers (ofi,
# other hosts).  Each job is judged by mpi_run (mh_mpi_lib.sh): exit 0,
# "No Errors", the expected channel matrix, nothing left on any host.
# Exit 77 (skipped) when emulated hosts cannot be built here.
here=$(dirname "$0")
. "$here/../launcher/lib.sh"
. "$here/../launcher/hosts_lib.sh"
. "$here/mh_mpi_lib.sh"
[ $# -ge 2 ] || { echo "usage: t_mpi.sh NHOSTS \"LAYOUT PROG [NAME=VALUE]... [ARG]...\" ..." >&2; exit 2; }
nhosts=$1
shift
hosts_up "$nhosts"
t_start=$(now_ms)
for spec in "$@"; do
    mpi_run "$spec"
done
echo "PASS: $# jobs on $nhosts hosts in $(( $(now_ms) - t_start )) ms"
