#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A rank killed by a signal ends the whole job within 2 s, with exit code
# 128+signal and a message naming the rank, while the others wait in a
# fence that can never complete.
. "$(dirname "$0")/lib.sh"
# Under a sanitizer build the probe's own SIGSEGV must stay a signal.
export ASAN_OPTIONS="handle_segv=0:${ASAN_OPTIONS:-}"
for sig in 9 11; do
    run "$MPIEXEC" -n 4 "$PMI_PROBE" crash 2 $sig
    expect_rc $((128 + sig))
    expect_err "^mpiexec: rank 2 (pid [0-9]*) killed by signal $sig ("
    expect_lines "^mpiexec: rank" 1 "$T/err"   # only the first failure is reported
    expect_gone_within 2000
done
# A rank that ignores SIGTERM gets SIGKILL about 1 s later; still < 2 s.
run "$MPIEXEC" -n 3 sh -c 'trap "" TERM; [ "$PMI_RANK" = 1 ] && { sleep 0.2; echo FAIL_AT $(($(date +%s%N) / 1000000)); exit 3; }; while :; do sleep 0.05; done'
expect_rc 3
expect_err "^mpiexec: rank 1 (pid [0-9]*) exited with code 3; ending the job"
expect_gone_within 2000
at=$(sed -n 's/^FAIL_AT //p' "$T/out")
[ $((END_MS - at)) -ge 900 ] || fail "SIGTERM-immune ranks gone after only $((END_MS - at)) ms?"
echo "PASS"
