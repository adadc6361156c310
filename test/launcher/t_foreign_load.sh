#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# LOCUS_POLL=auto beside foreign load (src/pt2pt/lc_starve.c): two busy
# loops, each in a session of its own as another user's job would be, on
# this job's cores; a 2-rank 8 B ping-pong's median half round trip stays
# under 50 µs.  Spinning waits there lost whole time slices: medians of
# 6–12 ms (docs/architecture.md, "Progress and waiting").  Three runs of
# 1 s; the median of their medians decides (the load of other work on a
# shared machine moves any one run).
. "$(dirname "$0")/lib.sh"
loops=""
# Each loop's pid leads its session and process group (setsid execs
# timeout): kill the group, or the sh under a killed timeout runs on.
trap 'for p in $loops; do kill -KILL -$p 2>/dev/null; done; rm -rf "$T"' EXIT
[ -x "$MPI_PINGPONG" ] || fail "MPI_PINGPONG not set"

# The busy loops die by themselves after 60 s should this script be killed
# before its trap runs (timeout kills its child then).
for i in 1 2; do
    setsid timeout -s KILL 60 sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
    loops="$loops $!"
done
sleep 0.3
for p in $loops; do kill -0 "$p" 2>/dev/null || fail "busy loop $p did not start"; done

meds=""
for r in 1 2 3; do
    run env LOCUS_POLL=auto "$MPIEXEC" -n 2 "$MPI_PINGPONG" 1
    expect_rc 0
    m=$(sed -n 's/^MEDIAN \([0-9.]*\) N [0-9]*$/\1/p' "$T/out")
    [ -n "$m" ] || fail "no MEDIAN line"
    echo "run $r: $(cat "$T/out")"
    meds="$meds $m"
done
mid=$(printf '%s\n' $meds | sort -g | sed -n 2p)
echo "median of medians: $mid us (limit 50; $(uptime))"
awk -v m="$mid" 'BEGIN { exit !(m < 50) }' || fail "8 B median $mid us beside busy loops, limit 50 us"
echo "PASS"
