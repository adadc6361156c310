#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Bad usage and launch failures: a clear message and exit code 1, no hang.
. "$(dirname "$0")/lib.sh"
run "$MPIEXEC" "$PMI_PROBE" kvs;                  expect_rc 1; expect_err "missing -n"
run "$MPIEXEC" -n 0 "$PMI_PROBE";                 expect_rc 1; expect_err "invalid number of processes '0'"
run "$MPIEXEC" -n abc "$PMI_PROBE";               expect_rc 1; expect_err "invalid number of processes 'abc'"
run "$MPIEXEC" -n;                                expect_rc 1; expect_err "needs a number"
run "$MPIEXEC" -n 2;                              expect_rc 1; expect_err "no program"
run "$MPIEXEC" -frobnicate -n 2 "$PMI_PROBE";     expect_rc 1; expect_err "unknown option '-frobnicate'"
run "$MPIEXEC" -n 2 -bind-to socket "$PMI_PROBE"; expect_rc 1; expect_err "unsupported binding"
run "$MPIEXEC" -n 2 locus-no-such-program-xyz;    expect_rc 1; expect_err "'locus-no-such-program-xyz' not found"
run "$MPIEXEC" -n 2 ./locus-no-such-file;         expect_rc 1; expect_err "cannot run './locus-no-such-file'"
: > "$T/noexec"; chmod 644 "$T/noexec"
run "$MPIEXEC" -n 2 "$T/noexec";                  expect_rc 1; expect_err "not executable"
printf '#!/nonexistent/interpreter\n' > "$T/badinterp"; chmod 755 "$T/badinterp"
run "$MPIEXEC" -n 2 "$T/badinterp";               expect_rc 1; expect_err "cannot execute '$T/badinterp'"
run "$MPIEXEC" --help;                            expect_rc 0; expect_out "Usage: mpiexec"
# -genv reaches the ranks; the PMI variables are set.
run "$MPIEXEC" -n 2 -genv LOCUS_TEST_VAR hello -genvall sh -c 'echo "$PMI_RANK $LOCUS_TEST_VAR $PMI_SIZE $LOCUS_LOCAL_RANK $LOCUS_LOCAL_SIZE"'
expect_rc 0
expect_out "^0 hello 2 0 2\$"
expect_out "^1 hello 2 1 2\$"
echo "PASS"
