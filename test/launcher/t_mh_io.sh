#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Standard I/O of remote ranks: stdout and stderr forwarded line by line
# (2000-byte lines written in two pieces by local and remote ranks at once
# never mix), -prepend-rank, a last line without newline, stderr kept
# apart; mpiexec's stdin reaching a remote rank 0 whole (larger than any
# pipe or socket buffer), or EOF when there is none.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 3

mh -hosts h1:1,h2:2,h3:1 -prepend-rank "$PMI_PROBE" lines 200
expect_rc 0
expect_lines "^\[[0-3]\] LINE rank=[0-3] i=[0-9]* [A-Z]* END\$" 800 "$T/out"
for r in 0 1 2 3; do expect_lines "^\[$r\] LINE rank=$r " 200 "$T/out"; done
[ "$(wc -l < "$T/out")" -eq 800 ] || fail "unexpected extra output lines"
awk 'length($0) != 2008 { exit 1 }' "$T/out" || fail "a line was cut or mixed"

mh -hosts h2:2,h3:1 -prepend-rank sh -c 'echo out$PMI_RANK; echo err$PMI_RANK >&2; printf tail$PMI_RANK'
expect_rc 0
for r in 0 1 2; do
    expect_out "^\[$r\] out$r\$"
    expect_err "^\[$r\] err$r\$"
    expect_out "^\[$r\] tail$r\$"
done
grep -q "out" "$T/err" && fail "stdout text on stderr"
# a single remote process's bytes pass unchanged
mh -hosts h2:1 printf 'no newline'
expect_rc 0
[ "$(od -c "$T/out")" = "$(printf 'no newline' | od -c)" ] || fail "single-rank output altered"

# stdin to a remote rank 0 (h2), checksummed as a singleton computes it.
head -c 300000 /dev/urandom > "$T/in"
want=$(timeout 20 "$PMI_PROBE" stdin < "$T/in") || fail "singleton probe failed"
echo "$want" | grep -q "bytes 300000 " || fail "singleton read $want"
timeout -k 2 20 "$LC_HOSTS" run "$HOSTS_NAME" h1 "$MPIEXEC" -launcher-exec "$AGENT" -hosts h2:1,h1:1,h3:1 \
    "$PMI_PROBE" stdin < "$T/in" > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0
expect_lines "^STDIN" 1 "$T/out"
[ "$(grep '^STDIN' "$T/out")" = "$want" ] || fail "rank 0 got '$(grep '^STDIN' "$T/out")', expected '$want'"
# no stdin at all: remote rank 0 reads EOF
timeout -k 2 20 "$LC_HOSTS" run "$HOSTS_NAME" h1 "$MPIEXEC" -launcher-exec "$AGENT" -hosts h3:2 \
    "$PMI_PROBE" stdin < /dev/null > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0
expect_out "^STDIN rank 0 bytes 0 "
# rank 0 that does not read its stdin: the job still ends
head -c 1000000 /dev/zero | timeout -k 2 20 "$LC_HOSTS" run "$HOSTS_NAME" h1 "$MPIEXEC" -launcher-exec "$AGENT" \
    -hosts h2:1,h3:1 "$PMI_PROBE" kvs > "$T/out" 2> "$T/err"
RC=$?
expect_rc 0
expect_lines "kvs ok" 2 "$T/out"
expect_hosts_clean
echo "PASS"
