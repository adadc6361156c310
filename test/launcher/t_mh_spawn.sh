#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Spawn across emulated hosts: a world whose ranks run on h2 (behind a
# proxy; mpiexec on h1) spawns a job; its PMI reaches mpiexec through the
# proxy, and the children run on mpiexec's host h1, read the parent job's
# keys and fence among themselves; the world on h1 and h2 does the same.
# A child that fails ends the remote world too; nothing is left anywhere.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 2
D="$T/d"
mkdir -p "$D"

for layout in h2:2 h1:1,h2:1; do
    mh -l -hosts "$layout" "$SPAWN_PROBE" parent "$D"
    expect_rc 0
    first=${layout%%:*}
    expect_out "^\[0\] SPAWN ok kvs=lc[0-9]*x[0-9a-f]\{8\}j1 host=$first\$"
    for r in 0 1; do expect_out "^\[1:$r\] CHILD ok $r/3 appnum=0 host=h1\$"; done
    expect_out "^\[1:2\] CHILD ok 2/3 appnum=1 host=h1\$"
    expect_hosts_clean
done

mh -hosts h2:2 "$SPAWN_PROBE" failchild
expect_rc 1
expect_err "job 1 rank 0 (pid [0-9]*) exited with code 1; ending the job"
grep -q "NOT ENDED" "$T/out" && fail "the remote world went on after its child failed"
expect_hosts_clean 3000
echo "PASS"
