#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Ranks inherit only what mpiexec gives them (issue 12): stdin, stdout,
# stderr and PMI_FD — not the descriptors mpiexec itself inherited (ctest's
# fd 3, a shell's redirections, here fds 3, 7 and 9 of this script, one
# of them a file another program could use to reach ours).
. "$(dirname "$0")/lib.sh"
# Each rank lists its open descriptors from 3 to 63 by stat (no listing
# of a directory, which would open one itself).
list='for i in $(seq 3 63); do [ -e /proc/$$/fd/$i ] && echo "rank $PMI_RANK fd $i $(readlink /proc/$$/fd/$i) pmi=${PMI_FD:-none}"; done; true'
: >"$T/secret"
exec 3<"$T/secret" 7>"$T/secret" 9</dev/null
run "$MPIEXEC" -n 2 sh -c "$list"
exec 3<&- 7>&- 9<&-
expect_rc 0
# Each rank has exactly one descriptor from 3 up: its PMI socket.
awk '"pmi=" $4 != $6 { bad = 1; print "inherited: " $0 } END { exit bad }' "$T/out" >"$T/bad" ||
    { cat "$T/bad" >&2; fail "a rank inherited a descriptor of mpiexec's"; }
expect_lines "^rank [01] fd " 2 "$T/out"
grep -q "socket:" "$T/out" || fail "no rank lists its PMI socket"
echo "PASS"
