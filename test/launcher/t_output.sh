#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Output forwarding: every line whole (lines of 2000 bytes written in two
# pieces by 3 ranks at once), -prepend-rank prefixes, stderr kept apart,
# a last line without newline still delivered.
. "$(dirname "$0")/lib.sh"
run "$MPIEXEC" -n 3 -prepend-rank "$PMI_PROBE" lines 200
expect_rc 0
expect_lines "^\[[0-2]\] LINE rank=[0-2] i=[0-9]* [A-Z]* END\$" 600 "$T/out"
for r in 0 1 2; do expect_lines "^\[$r\] LINE rank=$r " 200 "$T/out"; done
[ "$(wc -l < "$T/out")" -eq 600 ] || fail "unexpected extra output lines"
awk 'length($0) != 2008 { exit 1 }' "$T/out" || fail "a line was cut or mixed"

run "$MPIEXEC" -n 3 "$PMI_PROBE" lines 100
expect_rc 0
expect_lines "^LINE rank=[0-2] i=[0-9]* [A-Z]* END\$" 300 "$T/out"

run "$MPIEXEC" -n 2 -prepend-rank sh -c 'echo out$PMI_RANK; echo err$PMI_RANK >&2; printf tail$PMI_RANK'
expect_rc 0
expect_out "^\[0\] out0\$"
expect_out "^\[1\] out1\$"
expect_err "^\[1\] err1\$"
grep -q "out" "$T/err" && fail "stdout text on stderr"
# with several ranks a last unterminated line is completed by a newline
expect_out "^\[0\] tail0\$"
expect_out "^\[1\] tail1\$"
# a single process's bytes pass unchanged
run "$MPIEXEC" -n 1 printf 'no newline'
expect_rc 0
[ "$(od -c "$T/out")" = "$(printf 'no newline' | od -c)" ] || fail "single-rank output altered"
echo "PASS"
