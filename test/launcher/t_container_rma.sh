#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One-sided communication between two emulated containers of one host
# (issue 15): Docker's defaults (own PID namespace: no CMA between them)
# with LOCUS_SHM_DIR on the bind-mounted directory, so the pair talks
# through shared-memory rings only.  Win_allocate/Win_allocate_shared
# windows are one segment of that directory (loads and stores across the
# containers); Win_create windows go by active messages, their large puts
# and gets streamed through the rings.  Every RMA test program: 2 ranks
# (c1, c2) and 3 ranks (two in c1 -- CMA between them -- and one in c2),
# each asserted to run on the expected channels and to print No Errors.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 1
container_up c1 h1
container_up c2 h1
dir=$(cut -d' ' -f4 "$T/ct-c1")

# job LAYOUT NP PROG [ARG]: the program across the containers (a longer
# limit than run's: 3-rank jobs on a loaded 2-core machine).
job() {
    _lay=$1 _np=$2 _prog=$3
    shift 3
    t0=$(now_ms)
    timeout -k 2 90 "$LC_HOSTS" run "$HOSTS_NAME" c1 "$MPIEXEC" -launcher-exec "$AGENT" -genv LOCUS_SHOW_CHANNELS 1 \
        -genv LOCUS_SHM_DIR "$dir" -hosts "$_lay" -n "$_np" "$MPI_TEST_DIR/$_prog" "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    [ "$RC" -eq 124 ] && fail "timed out (hung): $_prog $* on $_lay"
    expect_rc 0
    expect_out "No Errors"
    # rank 0 is in c1: to rank 1 (c2 with 2 ranks, c1 with 3) and the last rank (c2)
    got=$(sed -n "s/^.*rank 0 -> rank $((_np - 1)): \([a-z+]*\) (.*/\1/p" "$T/out" "$T/err" | head -1)
    [ "$got" = shm ] || fail "$_prog on $_lay: rank 0 -> rank $((_np - 1)) on '$got', expected shm (no CMA across PID namespaces)"
    if [ "$_np" = 3 ]; then
        got=$(sed -n 's/^.*rank 0 -> rank 1: \([a-z+]*\) (.*/\1/p' "$T/out" "$T/err" | head -1)
        [ "$got" = shm+cma ] || fail "$_prog on $_lay: rank 0 -> rank 1 on '$got', expected shm+cma (one container)"
    fi
    echo "ok: $_prog $* on $_lay ($(( $(now_ms) - t0 )) ms)"
}

for spec in "c1:1,c2:1 2" "c1:2,c2:1 3"; do
    set -- $spec
    lay=$1 np=$2
    job "$lay" "$np" rma_basic
    job "$lay" "$np" rma_lock
    job "$lay" "$np" rma_pscw
    job "$lay" "$np" rma_dynamic
    job "$lay" "$np" rma_shared
    job "$lay" "$np" rma_errors
    job "$lay" "$np" rma_dtype quick
    job "$lay" "$np" rma_am_order
    job "$lay" "$np" rma_passive create
    job "$lay" "$np" rma_stream quick
done
expect_hosts_clean 3000
echo "PASS"
