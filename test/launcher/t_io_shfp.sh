#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI-IO's shared-file-pointer side files (.<file>.locus-shfp.<tag>, beside
# the data file) do not outlive their job (issue 12, point 7): a job
# killed with kill -9 leaves one, the next job that creates one in that
# directory removes it, and leaves alone the side file of a job still
# running (which then completes with the right shared position).  In the
# end nothing is left.
. "$(dirname "$0")/lib.sh"
D="$T/io"
mkdir "$D"
sidefiles() { ls -a "$D" | grep -c 'locus-shfp' ; }
wait_ready() { # FILE: up to 30 s for READY
    i=0
    while ! grep -q READY "$1" 2>/dev/null; do
        i=$((i + 1)); [ $i -gt 300 ] && return 1; sleep 0.1
    done
}

# 1. A job killed (mpiexec and its ranks, kill -9) holding its side file.
"$MPIEXEC" -n 2 "$MPI_SHFP" "$D/killed" "$D/never" >"$T/killed.out" 2>"$T/killed.err" &
KPID=$!
wait_ready "$T/killed.out" || { kill -9 $KPID; fail "the job to kill never got ready: $(cat "$T/killed.err")"; }
kill -9 $KPID
wait $KPID 2>/dev/null
sleep 0.5 # the ranks die with mpiexec (PR_SET_PDEATHSIG)
[ "$(sidefiles)" -eq 1 ] || fail "expected the killed job's side file, found: $(ls -a "$D")"
KILLED=$(ls -a "$D" | grep locus-shfp)

# 2. A job alive, holding its side file.
"$MPIEXEC" -n 2 "$MPI_SHFP" "$D/alive" "$D/go" >"$T/alive.out" 2>"$T/alive.err" &
APID=$!
wait_ready "$T/alive.out" || { kill -9 $APID; fail "the live job never got ready: $(cat "$T/alive.err")"; }
ALIVE=$(ls -a "$D" | grep locus-shfp | grep -v -F "$KILLED")
[ -n "$ALIVE" ] || { kill -9 $APID; fail "no side file for the live job"; }

# 3. Another job creates its side file there: the dead job's goes, the
#    live job's stays.
run "$MPIEXEC" -n 3 "$MPI_SHFP" "$D/next"
[ "$RC" -eq 0 ] || { kill -9 $APID; fail "the next job failed (exit $RC)"; }
expect_out "No Errors"
[ -e "$D/$KILLED" ] && { kill -9 $APID; fail "the killed job's side file $KILLED is still there"; }
[ -e "$D/$ALIVE" ] || { kill -9 $APID; fail "the live job's side file $ALIVE was removed"; }

# 4. The live job goes on with its shared pointer, and closes.
touch "$D/go"
wait $APID
ARC=$?
[ "$ARC" -eq 0 ] || fail "the live job failed (exit $ARC): $(cat "$T/alive.err")"
grep -q "No Errors" "$T/alive.out" || fail "the live job did not finish: $(cat "$T/alive.out" "$T/alive.err")"
[ "$(sidefiles)" -eq 0 ] || fail "side files left: $(ls -a "$D" | grep locus-shfp)"
echo "PASS"
