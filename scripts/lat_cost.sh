#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# lat_cost.sh — instructions per 8 B ping-pong iteration (MPI_Send +
# MPI_Recv on rank 0, one progress pass each: bench/lat_cost.c says how),
# counted by callgrind: the figure for the message path's cost on a
# machine whose timings are noisy.  It repeats exactly from run to run.
#
#   scripts/lat_cost.sh [-b BUILD]... [-i ITERS] [-n]
#
# -n: the nonblocking calls instead (MPI_Isend + MPI_Wait, MPI_Irecv +
# MPI_Wait).
# BUILD: a build directory with bin/mpiexec, bin/mpicc and lib/ (default:
# build); each is built with its own mpicc and run with its own mpiexec
# (RUNPATH pins the library).  Waits spin (LOCUS_POLL=spin) so that a
# peer never sleeps on its doorbell and rank 0 never rings it.  Prints
# per build the instructions (Ir) per iteration.  Needs valgrind.
set -eu

builds=""
iters=5000
mode=
while getopts "b:i:n" opt; do
    case $opt in
    b) builds="$builds $(cd "$OPTARG" && pwd)" ;;
    i) iters=$OPTARG ;;
    n) mode=nb ;;
    *) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d' >&2; exit 2 ;;
    esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$builds" ] || builds="$top/build"
command -v valgrind >/dev/null || { echo "lat_cost.sh: valgrind is not installed" >&2; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/lat_cost.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf "%-40s %10s\n" build Ir/iter
for b in $builds; do
    "$b/bin/mpicc" -O2 -g -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -o "$work/lat_cost" "$top/bench/lat_cost.c"
    out="$work/cg.out"
    rm -f "$out"
    "$b/bin/mpiexec" -genv LOCUS_POLL spin -n 2 sh -c '
        if [ "$PMI_RANK" = 0 ]; then
            exec valgrind -q --tool=callgrind --collect-atstart=no --callgrind-out-file="$0" "$@"
        fi
        exec "$@"' "$out" "$work/lat_cost" "$iters" $mode >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
    ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
    printf "%-40s %10.1f\n" "$b" "$(echo "$ir / $iters" | bc -l)"
done
