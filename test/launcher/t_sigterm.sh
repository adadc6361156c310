#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# SIGTERM (and SIGINT) to mpiexec reach every rank; the job is gone within
# 2 s and mpiexec exits with 128+signal.
. "$(dirname "$0")/lib.sh"
# A failing check must not leave the background job behind.
mp=""
trap '[ -n "$mp" ] && kill -KILL $mp $ranks 2>/dev/null; rm -rf "$T"' EXIT
ranks=""
for sig in TERM INT; do
    # Empty the files first: the background shell truncates them only
    # once it runs, and the wait loop below must not see the last run's.
    : > "$T/out"
    : > "$T/err"
    "$MPIEXEC" -n 3 "$PMI_PROBE" wait > "$T/out" 2> "$T/err" &
    mp=$!
    i=0
    while [ "$(grep -c READY "$T/out")" -lt 3 ]; do
        i=$((i + 1)); [ $i -gt 200 ] && fail "ranks never got ready"
        sleep 0.05
    done
    ranks=$(pgrep -P $mp)
    [ "$(echo $ranks | wc -w)" -eq 3 ] || fail "expected 3 rank processes, found: $ranks"
    t0=$(now_ms)
    kill -$sig $mp
    wait $mp
    RC=$?
    mp=""
    ELAPSED_MS=$(( $(now_ms) - t0 ))
    [ $sig = TERM ] && expect_rc 143
    [ $sig = INT ] && expect_rc 130
    expect_fast 2000
    expect_err "^mpiexec: received signal"
    for p in $ranks; do kill -0 $p 2>/dev/null && fail "rank pid $p survived SIG$sig"; done
done
echo "PASS"
