#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPICH's own library as the PMI client: an MPICH-built program (PMI-1
# over PMI_FD) runs under our mpiexec, including MPI_Abort.
. "$(dirname "$0")/lib.sh"
[ -x "${HELLO_MPICH:-}" ] || { echo "SKIP: mpicc.mpich not available"; exit 77; }
unset LD_LIBRARY_PATH   # MPICH's libmpich, not ours
run "$MPIEXEC" -n 2 "$HELLO_MPICH"
expect_rc 0
expect_lines "^hello from [01] of 2 sum 1\$" 2 "$T/out"
run "$MPIEXEC" -n 3 "$HELLO_MPICH" abort
expect_rc 7
expect_err "^mpiexec: rank 1 (pid [0-9]*) called MPI_Abort (exit code 7)"
expect_fast 5000   # whole run, MPICH start-up included
echo "PASS"
