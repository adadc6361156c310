#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# t_async_lat8.sh BUILD SOURCE — the asynchronous progress thread must not
# make the application's message path longer (issue 14: with the thread
# an application that calls MPI gets what it gets without it).  Counts the
# instructions of one 8 B ping-pong iteration on rank 0's application
# thread (bench/lat_cost.c: MPI_Send + MPI_Recv, callgrind, that thread's
# counts only) without and with LOCUS_ASYNC_PROGRESS=1; fails when the
# thread's run costs more than 1.5x.  Session 22's library: 744 against
# 1,352 (1.82x: with the thread the request pool, matching and sends ran
# MULTIPLE's locked code).  Instruction counts do not depend on the load.
set -eu
build=$1
src=$2
iters=4000
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/t_async_lat8.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$build/bin/mpicc" -O2 -g -std=c11 -D_GNU_SOURCE -o "$work/lat_cost" "$src/bench/lat_cost.c"

# Instructions per iteration of rank 0's first thread (the application's:
# --separate-threads writes one file per thread, -01 the main thread's).
count() {
    rm -f "$work"/cg.out*
    timeout 240 "$build/bin/mpiexec" -genv LOCUS_POLL spin -genv LOCUS_ASYNC_PROGRESS "$1" -n 2 sh -c '
        if [ "$PMI_RANK" = 0 ]; then
            exec valgrind -q --tool=callgrind --collect-atstart=no --separate-threads=yes \
                --callgrind-out-file="$0" "$@"
        fi
        exec "$@"' "$work/cg.out" "$work/lat_cost" "$iters" >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
    ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$work/cg.out-01")
    [ -n "$ir" ] || { echo "FAIL: no callgrind totals"; cat "$work/log"; exit 1; }
    # Nothing counted: lat_cost.c was built without <valgrind/callgrind.h>
    # (its toggles are then no-ops), so there is nothing to compare.
    [ "$ir" -gt 0 ] || { echo "FAIL: callgrind counted nothing (is valgrind/callgrind.h installed?)"; exit 1; }
    echo $((ir / iters))
}
off=$(count 0)
on=$(count 1)
echo "8 B round trip, rank 0's application thread: $off instructions without the progress thread, $on with it"
if [ $((on * 100)) -gt $((off * 150)) ]; then
    echo "FAIL: with LOCUS_ASYNC_PROGRESS=1 the round trip costs more than 1.5x ($on against $off)"
    exit 1
fi
echo "PASS"
