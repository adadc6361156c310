#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Exit codes: first non-zero exit code of a rank; PMI abort's code; a rank
# exiting without PMI finalize ends the job with 1.  All end within 2 s.
. "$(dirname "$0")/lib.sh"
run "$MPIEXEC" -n 3 "$PMI_PROBE" exit 1 5
expect_rc 5
expect_err "^mpiexec: rank 1 (pid [0-9]*) exited with code 5; ending the job"
expect_gone_within 2000

run "$MPIEXEC" -n 4 "$PMI_PROBE" abort 3 6
expect_rc 6
expect_err "^mpiexec: rank 3 (pid [0-9]*) called MPI_Abort (exit code 6): probe abort: rank gives up"
expect_lines "^mpiexec: rank" 1 "$T/err"
expect_gone_within 2000

run "$MPIEXEC" -n 2 "$PMI_PROBE" nofinalize 0
expect_rc 1
expect_err "^mpiexec: rank 0 (pid [0-9]*) exited without finalizing PMI"
expect_gone_within 2000

# Programs that never use PMI: exit codes pass through, 0 stays 0.
run "$MPIEXEC" -n 2 sh -c 'exit 0'
expect_rc 0
run "$MPIEXEC" -n 3 sh -c '[ "$PMI_RANK" = 2 ] && { echo FAIL_AT $(($(date +%s%N) / 1000000)); exit 42; }; sleep 30'
expect_rc 42
expect_err "rank 2 (pid [0-9]*) exited with code 42"
expect_gone_within 2000
echo "PASS"
