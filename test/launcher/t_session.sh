#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Each rank leads a process group of its own inside mpiexec's session
# (mpiexec_spawn.c: not a session of its own, so that a waiting rank's
# sched_yield reaches the job's other ranks: under the scheduler's
# autogroups a yield passes the core only within the yielder's session);
# the group takes in what the rank starts; mpiexec's signal forwarding
# reaches the rank and its children (SIGTERM, SIGINT), and SIGKILL to
# mpiexec ends the ranks (PDEATHSIG).  With LOCUS_RANK_SESSIONS=1 each
# rank leads a session of its own instead (as under Hydra), and the rest
# holds alike.
. "$(dirname "$0")/lib.sh"
mp=""
pids=""
trap '[ -n "$mp" ] && kill -KILL $mp 2>/dev/null; [ -n "$pids" ] && kill -KILL $pids 2>/dev/null; rm -rf "$T"' EXIT

# field N (>= 3) of /proc/PID/stat: after the ") " that ends the name
stat_field() { sed 's/^.*) //' "/proc/$1/stat" | cut -d' ' -f$(( $2 - 2 )); }

# start: a 2-rank job of shells, each with a child; waits for both "R"
# lines (rank pid, child pid) and sets mp, ranks, kids.
start() {
    : > "$T/out"
    : > "$T/err"
    LOCUS_RANK_SESSIONS=$own "$MPIEXEC" -n 2 sh -c 'sleep 300 & echo "R $$ $!"; wait' > "$T/out" 2> "$T/err" &
    mp=$!
    wait_lines '^R ' 2 "$T/out"
    ranks=$(awk '/^R /{print $2}' "$T/out")
    kids=$(awk '/^R /{print $3}' "$T/out")
    pids="$ranks $kids"
}

gone_within() { # MS PIDS...: every pid gone within MS
    lim=$1; shift
    t0=$(now_ms)
    for p in "$@"; do
        while kill -0 "$p" 2>/dev/null && [ "$(stat_field "$p" 3 2>/dev/null)" != Z ]; do
            [ $(( $(now_ms) - t0 )) -ge "$lim" ] && fail "pid $p still there ${lim} ms after the signal"
            sleep 0.05
        done
    done
}

for own in 0 1; do
for sig in TERM INT; do
    start
    for p in $ranks; do
        [ "$(stat_field "$p" 5)" = "$p" ] || fail "rank pid $p does not lead its process group"
        if [ $own = 1 ]; then
            [ "$(stat_field "$p" 6)" = "$p" ] ||
                fail "LOCUS_RANK_SESSIONS=1: rank pid $p does not lead a session (session $(stat_field "$p" 6))"
        else
            [ "$(stat_field "$p" 6)" = "$(stat_field "$mp" 6)" ] ||
                fail "rank pid $p is not in mpiexec's session (session $(stat_field "$p" 6))"
        fi
    done
    for k in $kids; do
        r=$(stat_field "$k" 4)
        [ "$(stat_field "$k" 5)" = "$r" ] || fail "child $k of rank $r is not in its rank's process group"
    done
    signal_job $sig
    gone_within 2000 $ranks $kids
    pids=""
done

# SIGKILL to mpiexec: the ranks die with it (PR_SET_PDEATHSIG); their
# children are orphans (their group's leader died): ended here.
start
kill -KILL $mp
wait $mp 2>/dev/null
mp=""
gone_within 2000 $ranks
kill -KILL $kids 2>/dev/null
pids=""
done
echo "PASS"
