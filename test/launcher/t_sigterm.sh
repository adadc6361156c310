#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# SIGTERM (and SIGINT) to mpiexec reach every rank; the job is gone within
# 2 s and mpiexec exits with 128+signal.  Told to end a job that hangs,
# mpiexec first says what each process that has not exited is doing
# (mpiexec_stuck.c): a test's time limit leaves that as the only witness.
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
    wait_lines READY 3 "$T/out"
    ranks=$(pgrep -P $mp)
    [ "$(echo $ranks | wc -w)" -eq 3 ] || fail "expected 3 rank processes, found: $ranks"
    signal_job $sig
    expect_err "^mpiexec: received signal"
    for p in $ranks; do kill -0 $p 2>/dev/null && fail "rank pid $p survived SIG$sig"; done
done

# A job that hangs three ways (pmi_probe stuck): rank 0 after PMI finalize,
# rank 1 spinning, rank 2 in a fence that never completes.
: > "$T/out"
: > "$T/err"
"$MPIEXEC" -n 3 "$PMI_PROBE" stuck > "$T/out" 2> "$T/err" &
mp=$!
wait_lines READY 3 "$T/out"
ranks=$(pgrep -P $mp)
kill -TERM $mp
wait $mp
RC=$?
mp=""
expect_rc 143
expect_err "^mpiexec: at signal 15, 3 of 3 processes had not exited:"
grep -Eq "^mpiexec:   rank 0 \(pid [0-9]+\): finalized PMI .*; state [RS], CPU [0-9.]+ s, 1 thread" "$T/err" ||
    fail "no report of rank 0 past PMI finalize"
grep -Eq "^mpiexec:   rank 1 \(pid [0-9]+\): initialized PMI, not finalized .*last request 'barrier_in'; state R," "$T/err" ||
    fail "no report of rank 1 spinning inside MPI"
grep -Eq "^mpiexec:   rank 2 \(pid [0-9]+\): initialized PMI, not finalized" "$T/err" ||
    fail "no report of rank 2 inside MPI"
for p in $ranks; do kill -0 $p 2>/dev/null && fail "rank pid $p survived SIGTERM"; done
echo "PASS"
