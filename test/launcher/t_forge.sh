#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12.4: a packet a peer forges in shared memory (mpi_forge.c writes
# into the ring it shares with rank 0) is refused by rank 0, which says
# what was wrong and ends the job through the launcher: a non-zero exit
# code, no signal, nothing left in /dev/shm.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS="handle_segv=0:${ASAN_OPTIONS:-}"
for mode in eager pool data kind; do
    case $mode in
    eager) why="EAGER length 70000 exceeds the [0-9]* B of its ring cell" ;;
    pool) why="pool cell index 99999 beyond its pool of [0-9]* cells" ;;
    data) why="DATA length 4 leaves no data after its 16-byte prefix" ;;
    kind) why="unknown packet kind 77" ;;
    esac
    run "$MPIEXEC" -n 2 "$MPI_FORGE" $mode
    grep -q "no Locus segment" "$T/err" && { echo "SKIP: no shared-memory segment to forge into"; exit 77; }
    [ "$RC" -ne 0 ] || fail "$mode: the job succeeded"
    [ "$RC" -lt 128 ] || fail "$mode: exit code $RC (a signal)"
    expect_err "rank 0 received a malformed packet from rank 1 (world) on shm: $why; ending the job"
    expect_lines "^locus\[0\]: error: rank 0 received a malformed packet" 1 "$T/err"
    expect_err "^mpiexec: rank 0 (pid [0-9]*) called MPI_Abort (exit code 1): rank 0 received a malformed packet from rank 1"
    grep -q "killed by signal\|Segmentation\|AddressSanitizer\|runtime error" "$T/err" && fail "$mode: a crash"
    grep -q "the forged packet was accepted" "$T/out" && fail "$mode: the packet was accepted"
    kvs=$(sed -n 's/^\(\[[0-9]*\] \)\{0,1\}KVS //p' "$T/out" | head -1)
    [ -n "$kvs" ] || fail "$mode: rank 1 did not say which job it was"
    left=$(ls /dev/shm 2>/dev/null | grep -F "locus-$kvs-")
    [ -z "$left" ] || fail "$mode: left in /dev/shm: $left"
done
echo "PASS"
