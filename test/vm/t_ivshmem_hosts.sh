#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The ivshmem channel between emulated virtual machines: emulated hosts
# (scripts/lc-hosts: network, UTS, IPC, mount and PID namespaces) count
# as separate kernels through the test-only LOCUS_BOOT_ID=%b-%h, and all
# map one file as their IVSHMEM region (LOCUS_IVSHMEM=<path>), as QEMU
# guests map one ivshmem-plain BAR.  So ranks on one host must use shm,
# ranks on two hosts ivshmem (never ofi, never CMA).
# usage: t_ivshmem_hosts.sh progs|twojobs|kill|nested
#   progs    pt2pt and collective programs of test/mpi on h1:2,h2:2 (and
#            one on 3 hosts), channel matrix checked, every slot freed
#            after each job (locus-info --locality)
#   twojobs  two jobs at once on one region: both pass, each over ivshmem
#   kill     a rank SIGKILLed in one "VM" ends the job; the dead job's
#            slots are reused at once on the same kernels (pids gone) and
#            after the lease from other kernels: with a 4-slot region, the
#            next 4-rank jobs find room
#   nested   containers inside VMs: two containers (lc-hosts container:
#            own PID, mount, UTS, network namespaces) in each of two
#            "VMs"; the VM's kernel identity is its domain name, which its
#            containers inherit (LOCUS_BOOT_ID=%b-%d).  Ranks in two
#            containers of one VM use shm (through the VM's LOCUS_SHM_DIR,
#            or its /dev/shm with --share-ipc; never CMA: other PID
#            namespaces), ranks in two VMs ivshmem; with nothing shared
#            inside a VM, ofi there and still ivshmem across
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

# expect_ivs_channels LAYOUT FILE [VM_OF [SAME_VM]]: rank 0's matrix in
# FILE says self, shm within a host, ivshmem between hosts.  With VM_OF
# (a file of "node vm" lines: containers and the VM they run in), ranks
# on one node may use any shm, ranks in two containers of one VM must use
# exactly SAME_VM (an extended regex, default "shm": other PID namespaces,
# so no CMA), and ranks in two VMs ivshmem.
expect_ivs_channels() {
    layout_hosts "$1" > "$T/rank_hosts"
    n=$(wc -l < "$T/rank_hosts")
    [ "$(grep -c '^  rank [0-9]*: ' "$2")" -eq "$n" ] || fail "$1: no channel matrix of $n rows"
    grep '^  rank [0-9]*: ' "$2" | awk -v vmfile="${3:-}" -v samevm="^(${4:-shm})\$" '
        BEGIN { if (vmfile != "") while ((getline l < vmfile) > 0) { split(l, f, " "); vm[f[1]] = f[2] } }
        NR == FNR { host[NR - 1] = $1; n = NR; next }
        {
            r = $2; sub(":", "", r)
            if (NF - 2 != n) { print "row " r ": " NF - 2 " entries, expected " n; bad = 1; next }
            for (c = 0; c < n; c++) {
                ch = $(c + 3)
                vr = (host[r] in vm) ? vm[host[r]] : host[r]
                vc = (host[c] in vm) ? vm[host[c]] : host[c]
                if (c == r + 0) ok = (ch == "self")
                else if (host[r] == host[c]) ok = (ch ~ /^shm/)
                else if (vr == vc) ok = (ch ~ samevm)
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

# nested_clean DIR: no locus-* object is left in a VM's /dev/shm (which
# the --share-ipc containers use), in its DIR (the LOCUS_SHM_DIR its
# containers bind) or in the private /dev/shm of c1..c4.  (One lc-hosts
# call per node: at load 200 each takes a second.)
nested_clean() {
    for _nc in $HOSTS c1 c2 c3 c4; do
        _nc_l=$("$LC_HOSTS" run "$HOSTS_NAME" "$_nc" sh -c 'ls /dev/shm "$1" | grep "^locus-" || true' sh "$1")
        [ -z "$_nc_l" ] || fail "left in /dev/shm or $1 in $_nc: $(echo "$_nc_l" | tr "\n" " ")"
    done
}

# nested_run LAYOUT SAME_VM PROG [ARG]...: the job, started in the first
# container of LAYOUT, passes with ivshmem between VMs and SAME_VM between
# the containers of one VM, and leaves nothing behind.  Extra environment
# in $EXTRA.
nested_run() {
    layout=$1 samevm=$2 prog=$3
    shift 3
    what="$prog on $layout${EXTRA:+ with $EXTRA}"
    # shellcheck disable=SC2086 # word lists
    job "$LC_HOSTS" run "$HOSTS_NAME" "${layout%%:*}" env LOCUS_SHOW_CHANNELS=1 $IVS_ENV ${EXTRA:-} \
        "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$layout" "$MPI_TEST_DIR/$prog" "$@"
    [ "$RC" -eq 0 ] || fail "$what: exit code $RC"
    grep -qw 'No Errors' "$T/out" || fail "$what: 'No Errors' not printed"
    grep -q '^\[rank [0-9]*\] \(FAIL\|FATAL\)' "$T/err" && fail "$what: a rank reported a failure"
    expect_ivs_channels "$layout" "$T/out" "$T/vm_of" "$samevm"
    [ "$samevm" != shm ] || grep -q 'rank 0 -> rank [0-9]*: shm (.*no CMA: other PID namespace' "$T/out" ||
        fail "$what: no shm pair of two containers says 'no CMA: other PID namespace'"
    expect_hosts_clean
    nested_clean "$dir"
    expect_slots_free
    echo "ok: $what: $samevm inside a VM, ivshmem across (${ELAPSED_MS} ms;$(grep -m1 '^  rank 0: ' "$T/out"))"
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
nested)
    hosts_up 2
    # The region must be seen in the containers, whose /tmp is their own
    # (as a guest's device file is bind-mounted into a container).
    R=$(mktemp -d /var/tmp/locus-vm-nested.XXXXXX) || fail "mktemp in /var/tmp"
    trap 'hosts_down; rm -rf "$R"' EXIT
    region=$R/ivshmem-region
    new_region 64M
    # Each VM's kernel identity: its domain name, set before its
    # containers are made so that they inherit it (their UTS namespace is
    # a copy of the VM's).
    for h in h1 h2; do
        "$LC_HOSTS" run "$HOSTS_NAME" $h domainname "vm-$h" || fail "domainname in $h"
    done
    IVS_ENV="LOCUS_IVSHMEM=$region LOCUS_BOOT_ID=%b-%d"
    # c1..c4: Docker defaults (private IPC and /dev/shm, one directory of
    # the VM bind-mounted); c5..c8: --share-ipc (the VM's /dev/shm).
    container_up c1 h1
    container_up c2 h1
    container_up c3 h2
    container_up c4 h2
    container_up c5 h1 --share-ipc
    container_up c6 h1 --share-ipc
    container_up c7 h2 --share-ipc
    container_up c8 h2 --share-ipc
    for c in $CONTAINERS; do
        echo "$c $(cut -d' ' -f3 "$T/ct-$c")"
    done > "$T/vm_of"
    dir=$(cut -d' ' -f4 "$T/ct-c1")
    # The emulation itself: containers of one VM report one kernel, the
    # two VMs two (else nothing below would mean anything).
    for c in c1 c2 c3; do
        "$LC_HOSTS" run "$HOSTS_NAME" $c env LOCUS_BOOT_ID=%b-%d "$LOCUS_INFO" --locality \
            > "$T/id-$c" 2>&1 || fail "locus-info in $c"
    done
    b1=$(sed -n 's/^  boot id *//p' "$T/id-c1") b2=$(sed -n 's/^  boot id *//p' "$T/id-c2")
    b3=$(sed -n 's/^  boot id *//p' "$T/id-c3")
    [ -n "$b1" ] && [ "$b1" = "$b2" ] && [ "$b1" != "$b3" ] ||
        fail "emulated kernels: c1 '$b1', c2 '$b2' (both h1), c3 '$b3' (h2)"
    EXTRA="LOCUS_SHM_DIR=$dir"
    for prog in pt2pt_order pt2pt_anysrc large_msg coll_bcast coll_reduce coll_allgather coll_alltoall; do
        nested_run c1:1,c2:1,c3:1,c4:1 shm $prog
    done
    # Two ranks in one container as well (shm+cma there), 6 ranks.
    nested_run c1:2,c2:1,c3:2,c4:1 shm pt2pt_order
    # The VM's /dev/shm shared instead of a directory.
    EXTRA=""
    nested_run c5:1,c6:1,c7:1,c8:1 shm large_msg
    nested_run c5:1,c6:1,c7:1,c8:1 shm coll_allgather
    # Nothing shared between the containers of a VM: the network there,
    # the region still across the VMs.
    nested_run c1:1,c2:1,c3:1,c4:1 'ofi|ofi[+]rma' pt2pt_order
    ;;
*)
    echo "usage: t_ivshmem_hosts.sh progs|twojobs|kill|nested" >&2
    exit 2
    ;;
esac
echo "PASS"
