#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test/run_mpi_test.sh at a job's time limit: the job fails as timed out,
# and stderr holds the evidence of where it hung — mpiexec's report of the
# ranks that had not exited (it got SIGTERM, not SIGKILL) and the stacks
# of the job's processes (gdb; the kernel's wait channel without it) —
# and nothing of the job is left.  The job is pmi_probe's "stuck" mode:
# rank 0 past PMI finalize, rank 1 spinning, rank 2 in a fence.
. "$(dirname "$0")/lib.sh"
runner="$(dirname "$0")/../run_mpi_test.sh"
t0=$(now_ms)
LC_TEST_STACK_SECONDS=60 timeout -k 5 120 "$runner" --timeout 2 "$MPIEXEC" 3 "$PMI_PROBE" stuck >"$T/out" 2>"$T/err" </dev/null
RC=$?
ELAPSED_MS=$(( $(now_ms) - t0 ))
[ "$RC" -eq 124 ] && fail "run_mpi_test.sh itself hung"
expect_rc 1
expect_err "job timed out after 2s"
expect_err "^mpiexec: at signal 15, 3 of 3 processes had not exited:"
expect_err "^mpiexec:   rank 0 (pid [0-9]*): finalized PMI"
expect_err "^--- stacks of the job's processes at the time limit"
expect_err "^--- pid [0-9]* (mpiexec): "
expect_lines "^--- pid [0-9]* (pmi_probe): " 3 "$T/err"
# Every stack complete: the attaches get 60 s here (4 s by default, which
# a loaded machine or a sanitizer's shadow memory can exceed).
if command -v gdb >/dev/null; then
    expect_err "sleep_while_launcher_lives"
    expect_err "lc_pmi_fence"
    expect_err "mpiexec_run"
fi
grep -q "processes of this job still running" "$T/err" && fail "the job outlived its run"
echo "PASS"
