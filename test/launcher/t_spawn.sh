#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# PMI spawn (MPI_Comm_spawn's launcher side, docs/dynamic.md "Step 2"),
# driven by spawn_probe without the MPI library:
#  - a world of 2 spawns one job of 2 commands (2 + 1 processes): rank,
#    size, appnum, arguments with spaces/'='/newline/'%', wdir, preput keys
#    and lc-parent-kvs before any fence, the parent job's keys read across
#    jobs, a fence per job; output prefixed "[1:r]" under -l; the /dev/shm
#    file a child leaves is removed at the end;
#  - refusals with no child started (missing program, a good command and a
#    missing one, not executable, too many processes, another host, bad
#    wdir), each with its error class and one line of reason;
#  - a child that exits 1 ends the run, named "job 1 rank 0", exit code 1;
#  - kill -9 of mpiexec leaves no child behind; a malformed request ends
#    the run;
#  - universe size: -usize, the host list's slots, else the world size;
#    a singleton's spawn is refused.
. "$(dirname "$0")/lib.sh"
D="$T/d"
mkdir "$D"

run "$MPIEXEC" -l -n 2 "$SPAWN_PROBE" parent "$D"
expect_rc 0
expect_out "^\[0\] SPAWN ok kvs=lc[0-9]*x[0-9a-f]\{8\}j1 "
for r in 0 1; do expect_out "^\[1:$r\] CHILD ok $r/3 appnum=0 "; done
expect_out "^\[1:2\] CHILD ok 2/3 appnum=1 "
shm=$(sed -n 's/^\[1:0\] SHM //p' "$T/out")
[ -n "$shm" ] || fail "the child did not create its /dev/shm file"
[ -e "$shm" ] && fail "$shm left behind"

# 2001 arguments, one of 50000 bytes, every byte value but NUL: chunked
# and %-encoded on the wire, intact in the child.
run "$MPIEXEC" -n 1 "$SPAWN_PROBE" bigargs
expect_rc 0
expect_out "^BIGARGS ok\$"

run "$MPIEXEC" -n 1 "$SPAWN_PROBE" refuse "$D"
expect_rc 0
expect_out "^REFUSE ok"
expect_lines "^REFUSED " 7 "$T/out"
[ -e "$D/started" ] && fail "a child of a refused spawn ran"
expect_out "^REFUSED second_missing 37 command 1: cannot run '/nonexistent/locus-prog'"
expect_out "^REFUSED too_many 42 .*at most 4096"

run "$MPIEXEC" -n 2 "$SPAWN_PROBE" failchild
expect_rc 1
expect_err "job 1 rank 0 (pid [0-9]*) exited with code 1; ending the job"
grep -q "NOT ENDED" "$T/out" && fail "the run went on after its child failed"
expect_fast 10000

# kill -9 of mpiexec: the child dies with it (PR_SET_PDEATHSIG).
timeout -k 2 30 "$MPIEXEC" -n 1 "$SPAWN_PROBE" sleepchild >"$T/out" 2>"$T/err" </dev/null &
mp=$!
i=0
until grep -q "CHILDPID" "$T/out" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 200 ] || fail "the child did not start"
    sleep 0.1
done
child=$(sed -n 's/.*CHILDPID //p' "$T/out")
kill -9 "$(pgrep -P $mp mpiexec || echo $mp)" 2>/dev/null
i=0
while kill -0 "$child" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 50 ] || { kill -9 "$child"; fail "child $child outlived mpiexec"; }
    sleep 0.1
done
wait $mp 2>/dev/null

# A malformed spawn request (a command before spawn_begin) is a protocol
# error: the run ends at once, naming the rank.
run "$MPIEXEC" -n 1 bash -c 'printf "cmd=init pmi_version=1 pmi_subversion=1\ncmd=spawn_cmd i=0 nprocs=1 argc=0 ninfo=0\n" >&$PMI_FD; sleep 15'
expect_rc 1
expect_err "rank 0 (pid [0-9]*) sent a malformed spawn request; ending the job"
expect_fast 10000

run "$MPIEXEC" -n 2 "$SPAWN_PROBE" usize
expect_lines "^USIZE 2\$" 2 "$T/out"
run "$MPIEXEC" -usize 7 -n 2 "$SPAWN_PROBE" usize
expect_lines "^USIZE 7\$" 2 "$T/out"
run "$MPIEXEC" -hosts localhost:5 -n 1 "$SPAWN_PROBE" usize
expect_lines "^USIZE 5\$" 1 "$T/out"
run env -u PMI_FD -u PMI_PORT "$SPAWN_PROBE" usize
expect_out "^USIZE -1\$"
run env -u PMI_FD -u PMI_PORT "$SPAWN_PROBE" notlocus
expect_rc 0
expect_out "^REFUSED notlocus 42 .*Locus's mpiexec"
echo "PASS"
