#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Comm_accept / MPI_Comm_connect between two separate mpiexec runs
# (test/mpi/dynproc_jobs.c; docs/dynamic.md "Between jobs"): N acceptors,
# M connectors, the port passed in a file; both providers; nothing left
# in /dev/shm.  DYNPROC_JOBS = the test program.
. "$(dirname "$0")/lib.sh"
[ -n "${DYNPROC_JOBS:-}" ] || { echo "DYNPROC_JOBS not set"; exit 77; }
shm_before=$(ls /dev/shm | grep -c '^lc' || true)

pair() { # N M [env...]
    n=$1 m=$2
    shift 2
    rm -f "$T/port"
    env "$@" timeout -k 2 40 "$MPIEXEC" -n "$n" "$DYNPROC_JOBS" accept "$T" >"$T/aout" 2>"$T/aerr" </dev/null &
    apid=$!
    run env "$@" "$MPIEXEC" -n "$m" "$DYNPROC_JOBS" connect "$T"
    wait $apid
    arc=$?
    [ "$arc" -eq 0 ] || { cat "$T/aout" "$T/aerr" >&2; fail "acceptors ($n) exited with $arc ($*)"; }
    expect_rc 0
    grep -q "No Errors" "$T/aout" || fail "acceptors: no 'No Errors' ($*)"
    expect_out "No Errors"
}

pair 1 1
pair 2 3
pair 3 2 LOCUS_NET_FORCE=1
pair 2 2 "LOCUS_OFI_PROVIDER=tcp;ofi_rxm"
shm_after=$(ls /dev/shm | grep -c '^lc' || true)
[ "$shm_after" -le "$shm_before" ] || fail "segments left in /dev/shm"
echo "PASS"
