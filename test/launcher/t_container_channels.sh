#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The channel Locus picks between two ranks in two emulated containers
# (issue 4), asserted from LOCUS_SHOW_CHANNELS, and the job correct on it:
#   c1,c2   Docker defaults + LOCUS_SHM_DIR on the bind-mounted dir -> shm
#   c1,c2   Docker defaults, no LOCUS_SHM_DIR (private /dev/shm)   -> ofi
#   c3,c4   --share-ipc (docker --ipc=host): the host's /dev/shm     -> shm
#   c5,c6   --share-pid + LOCUS_SHM_DIR: PID visible, CMA proven    -> shm+cma
#   c1,c7   c7 with --no-shared-dir, LOCUS_SHM_DIR set               -> ofi
#   c1,c8   c8 on another emulated host, LOCUS_SHM_DIR set           -> ofi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 2
container_up c1 h1
container_up c2 h1
container_up c3 h1 --share-ipc
container_up c4 h1 --share-ipc
container_up c5 h1 --share-pid
container_up c6 h1 --share-pid
container_up c7 h1 --no-shared-dir
container_up c8 h2
dir=$(cut -d' ' -f4 "$T/ct-c1")
prog=$MPI_TEST_DIR/pt2pt_order

# pair A B EXPECTED [SHM_DIR]: a 2-rank job on containers A and B.
pair() {
    set -- "$1" "$2" "$3" "${4:-}"
    if [ -n "$4" ]; then
        on "$1" "$MPIEXEC" -launcher-exec "$AGENT" -genv LOCUS_SHOW_CHANNELS 1 -genv LOCUS_SHM_DIR "$4" \
            -hosts "$1:1,$2:1" -n 2 "$prog"
    else
        on "$1" "$MPIEXEC" -launcher-exec "$AGENT" -genv LOCUS_SHOW_CHANNELS 1 -hosts "$1:1,$2:1" -n 2 "$prog"
    fi
    expect_rc 0
    expect_out "No Errors"
    got=$(sed -n 's/^.*rank 0 -> rank 1: \([a-z+]*\) (.*/\1/p' "$T/out")
    [ "$got" = "$3" ] || fail "$1 <-> $2 (LOCUS_SHM_DIR=${4:-unset}): channel '$got', expected '$3'"
    echo "ok: $1 <-> $2 (LOCUS_SHM_DIR=${4:-unset}): $got"
}

pair c1 c2 shm "$dir"
pair c1 c2 ofi+rma
pair c3 c4 shm
pair c5 c6 shm+cma "$dir"
pair c1 c7 ofi+rma "$dir"
pair c1 c8 ofi+rma "$dir"
# Issue 13: the agree phase's answers and the fallback's network address
# come in bulk (lc_getranks).  c1, c2 without LOCUS_SHM_DIR: an uncertain
# pair that falls back to the network.  Key by key each rank would also
# get its peer's answer (lc-shm-<r>-<me>) and address (twice): 8 gets in
# all instead of 2.
on c1 env LOCUS_PMI_STATS=1 "$MPIEXEC" -launcher-exec "$AGENT" -hosts "c1:1,c2:1" -n 2 "$prog"
expect_rc 0
expect_out "No Errors"
get=$(sed -n 's/.*PMI requests answered: [0-9]* (get \([0-9]*\),.*/\1/p' "$T/err" | head -1)
[ -n "$get" ] && [ "$get" -le 2 ] || fail "c1 <-> c2 fallback: ${get:-no} PMI gets for 2 ranks, at most 2 expected"
echo "ok: c1 <-> c2 fallback: $get PMI gets"
expect_hosts_clean 3000
echo "PASS"
