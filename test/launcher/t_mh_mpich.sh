#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPICH's own library across hosts under our launcher: an MPICH-built
# program (PMI-1 over PMI_FD, relayed by our proxies; PMI_process_mapping
# tells it which ranks share a node; its ch4:ucx netmod connects the hosts
# over tcp) computes an allreduce over 2 and 3 emulated hosts; MPI_Abort
# on a remote host ends the job.
#
# Known MPICH 4.0 / UCX problem, not ours: now and then (under load, about
# 1 run in 10) one rank spins in MPI_Finalize waiting for a UCX flush that
# a peer, already blocked in the final PMI barrier, never progresses
# (openucx/ucx#2254; it happens the same under MPICH's own hydra).  Such a
# run is recognized (every rank printed its correct result, then the job
# did not end) and retried, at most 3 times; every other outcome is
# judged at once.
. "$(dirname "$0")/lib.sh"
[ -x "${HELLO_MPICH:-}" ] || { echo "SKIP: mpicc.mpich not available"; exit 77; }
. "$(dirname "$0")/hosts_lib.sh"
unset LD_LIBRARY_PATH   # MPICH's libmpich, not ours
hosts_up 3

# hello LAYOUT N: run hello_mpich on LAYOUT, expect N correct lines.
hello() {
    for attempt in 1 2 3; do
        t0=$(now_ms)
        timeout -k 2 12 "$LC_HOSTS" run "$HOSTS_NAME" h1 "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$1" \
            "$HELLO_MPICH" > "$T/out" 2> "$T/err" < /dev/null
        RC=$?
        [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ] || break
        [ "$(grep -c "^hello from [0-9]* of $2 sum $(($2 * ($2 - 1) / 2))\$" "$T/out")" -eq "$2" ] ||
            fail "$1: hung before every rank had its result"
        echo "note: $1: MPICH/UCX finalize hang (attempt $attempt), retrying"
        expect_hosts_clean 3000
    done
    expect_rc 0
    expect_lines "^hello from [0-9]* of $2 sum $(($2 * ($2 - 1) / 2))\$" "$2" "$T/out"
    for r in $(seq 0 $(($2 - 1))); do expect_out "^hello from $r of $2 "; done
    expect_hosts_clean
}

hello h1:2,h2:1 3
hello h1:1,h2:2,h3:2 5

mh -hosts h1:1,h2:2 "$HELLO_MPICH" abort
expect_rc 7
expect_err "^mpiexec: rank 1 (pid [0-9]* on h2) called MPI_Abort (exit code 7)"
expect_fast 10000
expect_hosts_clean
echo "PASS"
