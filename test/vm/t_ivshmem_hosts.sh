#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The ivshmem channel between emulated virtual machines: emulated hosts
# (scripts/lc-hosts: network, UTS, IPC, mount and PID namespaces) count
# as separate kernels through the test-only LOCUS_BOOT_ID=%b-%h, and all
# map one file as their IVSHMEM region (LOCUS_IVSHMEM=<path>), as QEMU
# guests map one ivshmem-plain BAR.  So ranks on one host must use shm,
# ranks on two hosts ivshmem (never ofi, never CMA).
# usage: t_ivshmem_hosts.sh progs|twojobs|kill
#   progs    pt2pt and collective programs of test/mpi on h1:2,h2:2 (and
#            one on 3 hosts), channel matrix checked, every slot freed
#            after each job (locus-info --locality)
#   twojobs  two jobs at once on one region: both pass, each over ivshmem
#   kill     a rank SIGKILLed in one "VM" ends the job; the dead job's
#            slots are reused at once on the same kernels (pids gone) and
#            after the lease from other kernels: with a 4-slot region, the
#            next 4-rank jobs find room
# Environment (CMake): LC_HOSTS, MPIEXEC, MPI_TEST_DIR, LOCUS_INFO.
# Exit 77 (skipped) when emulated hosts cannot be built here.
here=$(dirname "$0")
. "$here/../launcher/lib.sh"
. "$here/../launcher/hosts_lib.sh"
. "$here/../multihost/mh_mpi_lib.sh"
mode=${1:-progs}
MH_RUN_LIMIT=60

# The region: a file every emulated host sees (they share the file
# system; only /dev/shm is private), fresh for this test.
region=$T/ivshmem-region
new_region() { # SIZE
    rm -f "$region"
    truncate -s "$1" "$region" || fail "cannot create $region"
}
IVS_ENV="LOCUS_IVSHMEM=$region LOCUS_BOOT_ID=%b-%h"

# expect_ivs_channels LAYOUT FILE: rank 0's matrix in FILE says self,
# shm within a host, ivshmem between hosts.
expect_ivs_channels() {
    layout_hosts "$1" > "$T/rank_hosts"
    n=$(wc -l < "$T/rank_hosts")
    [ "$(grep -c '^  rank [0-9]*: ' "$2")" -eq "$n" ] || fail "$1: no channel matrix of $n rows"
    grep '^  rank [0-9]*: ' "$2" | awk '
        NR == FNR { host[NR - 1] = $1; n = NR; next }
        {
            r = $2; sub(":", "", r)
            for (c = 0; c < n; c++) {
                ch = $(c + 3)
                if (c == r + 0) ok = (ch == "self")
                else if (host[r] == host[c]) ok = (ch ~ /^shm/)
                else ok = (ch == "ivshmem")
                if (!ok) { print "rank " r " (" host[r] ") -> rank " c " (" host[c] "): " ch; bad = 1 }
            }
        }
        END { exit bad }' "$T/rank_hosts" - > "$T/chk" || fail "$1: wrong channels: $(tr '\n' ';' < "$T/chk")"
    grep -q 'ivshmem (other kernel, same IVSHMEM region' "$2" || fail "$1: no ivshmem reason printed"
}

# expect_slots_free: no slot of the region is claimed (what locus-info
# --locality lists), within 2 s.
expect_slots_free() {
    i=0
    while LOCUS_IVSHMEM=$region "$LOCUS_INFO" --locality | grep -q '^    slot '; do
        i=$((i + 1))
        [ $i -lt 20 ] || fail "slots still claimed: $(LOCUS_IVSHMEM=$region "$LOCUS_INFO" --locality | grep '^    slot ' | tr '\n' ';')"
        sleep 0.1
    done
}

# ivs_run LAYOUT PROG [ARG]...: the job passes over ivshmem and leaves
# nothing behind.  Extra environment in $EXTRA.
ivs_run() {
    layout=$1 prog=$2
    shift 2
    what="$prog on $layout${EXTRA:+ with $EXTRA}"
    # shellcheck disable=SC2086 # word lists
    job "$LC_HOSTS" run "$HOSTS_NAME" h1 env LOCUS_SHOW_CHANNELS=1 $IVS_ENV ${EXTRA:-} \
        "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$layout" "$MPI_TEST_DIR/$prog" "$@"
    [ "$RC" -eq 0 ] || fail "$what: exit code $RC"
    grep -qw 'No Errors' "$T/out" || fail "$what: 'No Errors' not printed"
    expect_ivs_channels "$layout" "$T/out"
    expect_hosts_clean
    expect_shm_clean
    echo "ok: $what (${ELAPSED_MS} ms)"
}

case $mode in
progs)
    hosts_up 3
    new_region 64M
    for prog in pt2pt_order pt2pt_anysrc large_msg coll_bcast coll_reduce coll_allgather coll_alltoall; do
        ivs_run h1:2,h2:2 $prog
        expect_slots_free
    done
    ivs_run h1:1,h2:2,h3:2 pt2pt_order
    ivs_run h1:2,h2:1 large_msg
    expect_slots_free
    ;;
twojobs)
    hosts_up 2
    new_region 64M
    for j in 1 2; do
        # shellcheck disable=SC2086
        timeout -k 3 $MH_RUN_LIMIT "$LC_HOSTS" run "$HOSTS_NAME" h1 env LOCUS_SHOW_CHANNELS=1 $IVS_ENV \
            "$MPIEXEC" -launcher-exec "$AGENT" -hosts h1:2,h2:2 "$MPI_TEST_DIR/large_msg" \
            > "$T/out$j" 2> "$T/err$j" < /dev/null &
        eval "pid$j=\$!"
    done
    # shellcheck disable=SC2154 # set by eval
    wait "$pid1"; rc1=$?
    # shellcheck disable=SC2154
    wait "$pid2"; rc2=$?
    for j in 1 2; do
        eval "rc=\$rc$j"
        # shellcheck disable=SC2154
        [ "$rc" -eq 0 ] || { cat "$T/err$j" >&2; fail "job $j: exit code $rc"; }
        grep -qw 'No Errors' "$T/out$j" || fail "job $j: 'No Errors' not printed"
        expect_ivs_channels h1:2,h2:2 "$T/out$j"
    done
    # Eight different slots between them (rank 0's view of its peers'
    # slots and its own are in the reasons; at least: not the same set).
    s1=$(grep -o 'slot [0-9]*' "$T/out1" | sort -u | tr '\n' ' ')
    s2=$(grep -o 'slot [0-9]*' "$T/out2" | sort -u | tr '\n' ' ')
    [ "$s1" != "$s2" ] || fail "both jobs' rank 0 reach peers in the same slots: $s1"
    expect_hosts_clean
    expect_slots_free
    echo "ok: two jobs at once on one region (job 1 peers in $s1, job 2 in $s2)"
    ;;
kill)
    hosts_up 3
    new_region 32M
    EXTRA="LOCUS_IVSHMEM_SLOTS=4 LOCUS_IVSHMEM_LEASE=3"
    # shellcheck disable=SC2086
    job "$LC_HOSTS" run "$HOSTS_NAME" h1 env $IVS_ENV $EXTRA \
        "$MPIEXEC" -launcher-exec "$AGENT" -hosts h1:2,h2:2 "$MPI_TEST_DIR/kill_rank" 2
    [ "$RC" -ne 0 ] || fail "kill_rank: mpiexec exited 0"
    grep -q "rank 2 (pid [0-9]* on h2)\|rank 2 (host h2)" "$T/err" || fail "kill_rank: stderr does not name rank 2 on h2"
    expect_hosts_clean
    echo "ok: kill_rank ended the job in ${ELAPSED_MS} ms (exit $RC)"
    n=$(LOCUS_IVSHMEM=$region "$LOCUS_INFO" --locality | grep -c '^    slot ')
    [ "$n" -eq 4 ] || fail "the killed job should hold all 4 slots, locus-info lists $n"
    # Same kernels: the dead owners' pids are checked, no waiting.
    ivs_run h1:2,h2:2 pt2pt_order
    [ "$ELAPSED_MS" -lt 20000 ] || fail "reusing the slots took $ELAPSED_MS ms"
    expect_slots_free
    # Kill again, then run on kernels that cannot see the dead pids (h3):
    # its ranks wait for the lease (3 s) of h1's slots.
    EXTRA2=$EXTRA
    # shellcheck disable=SC2086
    job "$LC_HOSTS" run "$HOSTS_NAME" h1 env $IVS_ENV $EXTRA \
        "$MPIEXEC" -launcher-exec "$AGENT" -hosts h1:2,h2:2 "$MPI_TEST_DIR/kill_rank" 1
    [ "$RC" -ne 0 ] || fail "kill_rank (2): mpiexec exited 0"
    expect_hosts_clean
    EXTRA=$EXTRA2
    ivs_run h2:2,h3:2 pt2pt_order
    expect_slots_free
    ;;
*)
    echo "usage: t_ivshmem_hosts.sh progs|twojobs|kill" >&2
    exit 2
    ;;
esac
echo "PASS"
