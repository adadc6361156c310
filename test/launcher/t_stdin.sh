#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpiexec's stdin reaches rank 0 completely (larger than any pipe buffer);
# the other ranks read an empty stdin.
. "$(dirname "$0")/lib.sh"
head -c 300000 /dev/urandom > "$T/in"
# The checksum as a singleton computes it from the same bytes.
want=$(timeout 20 "$PMI_PROBE" stdin < "$T/in") || fail "singleton probe failed"
t0=$(now_ms)
timeout -k 2 20 "$MPIEXEC" -n 3 "$PMI_PROBE" stdin < "$T/in" > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0
expect_lines "^STDIN" 1 "$T/out"
[ "$(grep '^STDIN' "$T/out")" = "$want" ] || fail "rank 0 got '$(grep '^STDIN' "$T/out")', expected '$want'"
echo "$want" | grep -q "bytes 300000 " || fail "singleton read $want"
# No stdin at all (closed): rank 0 reads EOF, nothing hangs.
timeout -k 2 20 "$MPIEXEC" -n 2 "$PMI_PROBE" stdin > "$T/out" 2> "$T/err" <&-
RC=$?
expect_rc 0
expect_out "^STDIN rank 0 bytes 0 "
echo "PASS"
