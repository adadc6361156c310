#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# put/fence/get across ranks through mpiexec's PMI-1 server; one kvsname
# per job, of the form lc<pid>x<8 hex digits>, different for two jobs.
# A rank's keys are its own (issue 12): another rank can neither put
# Locus's key of that rank (lc-<what>-<rank>) nor replace a key that rank
# put first, and the refused puts change nothing.  Locus's bulk get
# (lc_getranks) returns every rank's value, also across several replies.
. "$(dirname "$0")/lib.sh"
for n in 1 4; do
    run "$MPIEXEC" -n "$n" "$PMI_PROBE" kvs
    expect_rc 0
    expect_lines "kvs ok kvsname=lc[0-9]*x[0-9a-f]\{8\} appnum=0\$" "$n" "$T/out"
    [ "$(sed 's/.*kvsname=//' "$T/out" | sort -u | wc -l)" -eq 1 ] || fail "ranks disagree on kvsname"
    for r in $(seq 0 $((n - 1))); do expect_out "^rank $r/$n kvs ok"; done
done
first=$(sed -n 's/.*kvsname=\([^ ]*\).*/\1/p' "$T/out" | head -1)
run "$MPIEXEC" -np 2 "$PMI_PROBE" kvs
expect_rc 0
grep -q "$first" "$T/out" && fail "two jobs got the same kvsname $first"
# mpirun is the same program
run "$(dirname "$MPIEXEC")/mpirun" -n 2 "$PMI_PROBE" kvs
expect_rc 0
expect_lines "kvs ok" 2 "$T/out"
# Bulk get (lc_getranks): 40 values of 1000 characters need two replies.
run "$MPIEXEC" -n 40 "$PMI_PROBE" ranks
expect_rc 0
expect_lines "^RANKS ok bulk=32768 " 40 "$T/out"
for n in 2 3; do
    run "$MPIEXEC" -n "$n" "$PMI_PROBE" owner
    expect_rc 0
    expect_lines "^OWNER ok" "$n" "$T/out"
done
echo "PASS"
