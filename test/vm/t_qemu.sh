#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Two real QEMU guests on this machine (scripts/vm/run-guests.sh: Debian's
# kernel, the host root over 9p, a private network in a network namespace,
# one ivshmem-plain region): MPI test programs across them at 2-4 ranks
# must pass with ivshmem between the guests and shm inside one, also with
# every rank in a container of its own (unshare: PID and mount
# namespaces, two containers in each guest: shm, never CMA, inside a
# guest and ivshmem across); a rank
# killed in one guest ends the job and its slots are reused; two
# guests without a common region must use ofi.  KVM when guests boot with
# it, else TCG (minutes).  Exit 77 with the reason where QEMU, root or the
# guest image (apt-get download of the kernel) are not available.
# Environment (CMake): MPIEXEC, MPI_TEST_DIR, LOCUS_INFO; LC_VM_CACHE
# (guest image, default ~/.cache/locus-vm).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# The guests see the host's root over 9p but mount their own /tmp, /run,
# /dev and /dev/shm (scripts/vm/guest-init.sh): a build under one of those
# is invisible to them.
for d in "$(dirname "$MPIEXEC")" "$MPI_TEST_DIR"; do
    case "$(realpath "$d")/" in
    /tmp/* | /run/* | /dev/*)
        echo "SKIP: the build ($d) is under /tmp, /run or /dev, which the guests mount afresh: build" \
             "outside them to run the VM test"
        exit 77 ;;
    esac
done
run=$here/../../scripts/vm/run-guests.sh
T=$(mktemp -d "${TMPDIR:-/tmp}/locus-vmtest.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; [ -s "$T/out" ] && tail -n 60 "$T/out" >&2; exit 1; }

# The job in vm1: each program with its matrix and exit code.
{
    echo 'export LOCUS_SHOW_CHANNELS=1 LOCUS_IVSHMEM_SLOTS=4'
    echo "\"$LOCUS_INFO\" --locality | grep '^  IVSHMEM'"
    for p in "vm1:1,vm2:1 pt2pt_order" "vm1:1,vm2:1 large_msg" "vm1:2,vm2:2 pt2pt_anysrc" \
             "vm1:2,vm2:2 coll_bcast" "vm1:2,vm2:2 coll_reduce" "vm1:2,vm2:2 coll_alltoall" \
             "vm1:2,vm2:1 coll_allgather"; do
        set -- $p
        echo "echo '=== $2 on $1'"
        echo "timeout 150 \"$MPIEXEC\" -iface eth0 -launcher-exec \"\$LC_AGENT\" -hosts $1 \"$MPI_TEST_DIR/$2\""
        echo 'echo "=== rc $?"'
    done
    # Containers inside the guests (nested): every rank in a container of
    # its own (its own PID and mount namespaces and /proc, the guest's
    # /dev/shm and sysfs, as with docker --ipc=host and the resource file
    # bound in), two in each guest: shm between the two of one guest (no
    # CMA: other PID namespaces), ivshmem across.
    for p in pt2pt_order coll_allgather; do
        echo "echo '=== nested $p on vm1:2,vm2:2'"
        echo "timeout 150 \"$MPIEXEC\" -iface eth0 -launcher-exec \"\$LC_AGENT\" -hosts vm1:2,vm2:2 unshare --pid --mount --fork --mount-proc --kill-child \"$MPI_TEST_DIR/$p\""
        echo 'echo "=== nested rc $?"'
    done
    # A rank killed in vm2 ends the job; the region has 4 slots, all held
    # by the dead job until the next job's ranks, each on the kernel of a
    # dead owner, reclaim them (its pid is gone).
    echo "echo '=== kill'"
    echo "timeout 150 \"$MPIEXEC\" -iface eth0 -launcher-exec \"\$LC_AGENT\" -hosts vm1:2,vm2:2 \"$MPI_TEST_DIR/kill_rank\" 2"
    echo 'echo "=== kill rc $?"'
    echo "\"$LOCUS_INFO\" --locality | grep -c '^    slot ' | sed 's/^/=== slots held /'"
    echo "timeout 150 \"$MPIEXEC\" -iface eth0 -launcher-exec \"\$LC_AGENT\" -hosts vm1:2,vm2:2 \"$MPI_TEST_DIR/pt2pt_order\""
    echo 'echo "=== after kill rc $?"'
} > "$T/job.sh"
sh "$run" --timeout 1000 "$T/job.sh" > "$T/out" 2>&1
rc=$?
[ $rc -eq 77 ] && { cat "$T/out"; exit 77; }
[ $rc -eq 0 ] || fail "run-guests.sh exited $rc"
grep -q '^  IVSHMEM     region [0-9a-f]*: /sys/bus/pci/devices/' "$T/out" || fail "the guest found no ivshmem PCI region"
n=$(grep -c '^=== rc' "$T/out")
[ "$n" -eq 7 ] || fail "$n of 7 programs ran"
[ "$(grep -c '^=== rc 0$' "$T/out")" -eq 7 ] || fail "a program failed: $(grep -B1 '^=== rc [1-9]' "$T/out" | tr '\n' ' ')"
[ "$(grep -c 'No Errors' "$T/out")" -eq 10 ] || fail "not every program printed No Errors"
# Between the guests ivshmem, inside one shm (vm1:2 holds ranks 0 and 1).
grep -q '^  rank 0: self     ivshmem *$' "$T/out" || fail "2 ranks in 2 guests: not ivshmem"
grep -q '^  rank 0: self     shm[+a-z]*  ivshmem  ivshmem *$' "$T/out" || fail "4 ranks: not shm inside, ivshmem across"
grep -q 'rank 0 -> rank 1: ivshmem (other kernel, same IVSHMEM region' "$T/out" || fail "no ivshmem reason"
[ "$(grep -c '^=== nested rc 0$' "$T/out")" -eq 2 ] || fail "nested: a program failed: $(grep -B1 '^=== nested rc' "$T/out" | tr '\n' ' ')"
sed -n '/^=== nested [a-z]/,/^=== nested rc/p' "$T/out" > "$T/nested"
[ "$(grep -c '^  rank 0: self     shm  *ivshmem  ivshmem *$' "$T/nested")" -eq 2 ] ||
    fail "nested: not shm (without CMA) between the containers of a guest, ivshmem across: $(grep '^  rank 0: ' "$T/nested" | tr '\n' ';')"
grep -q '^=== kill rc [1-9]' "$T/out" || fail "kill_rank: the job did not fail"
grep -q 'rank 2 (pid [0-9]* on vm2)\|rank 2 (host vm2)' "$T/out" || fail "kill_rank: rank 2 on vm2 not named"
grep -q '^=== slots held 4$' "$T/out" || fail "the killed job should hold the 4 slots: $(grep '=== slots' "$T/out")"
grep -q '^=== after kill rc 0$' "$T/out" || fail "the job after the kill could not reuse the slots"
echo "ok: 2 programs with every rank in a container of its own, 2 per guest: shm inside a guest, ivshmem across"
echo "ok: 7 programs across 2 guests over ivshmem ($(grep -o '[0-9]* guests up ([a-z]*) in [0-9]* s' "$T/out"))"

# No common region: the network.
{
    echo 'export LOCUS_SHOW_CHANNELS=1'
    echo "timeout 150 \"$MPIEXEC\" -iface eth0 -launcher-exec \"\$LC_AGENT\" -hosts vm1:1,vm2:1 \"$MPI_TEST_DIR/pt2pt_order\""
} > "$T/job.sh"
sh "$run" --region none --timeout 600 "$T/job.sh" > "$T/out" 2>&1 || fail "without a region: exit $?"
grep -q 'No Errors' "$T/out" || fail "without a region: no 'No Errors'"
grep -q '^  rank 0: self     ofi' "$T/out" || fail "without a region: not ofi between the guests"
echo "ok: without a common region the guests use ofi"
echo PASS
