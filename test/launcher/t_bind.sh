#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# -bind-to core pins rank i to core i % ncores; -bind-to none leaves the
# CPU set alone.
. "$(dirname "$0")/lib.sh"
all=$(grep Cpus_allowed_list /proc/self/status | awk '{print $2}')
run "$MPIEXEC" -n 2 -bind-to none sh -c 'grep Cpus_allowed_list /proc/self/status'
expect_rc 0
expect_lines "	$all\$" 2 "$T/out"
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { echo "SKIP: one CPU"; exit 77; }
run "$MPIEXEC" -n 2 -bind-to core sh -c 'echo "$PMI_RANK $(grep Cpus_allowed_list /proc/self/status | cut -f2)"'
expect_rc 0
c0=$(sed -n 's/^0 //p' "$T/out"); c1=$(sed -n 's/^1 //p' "$T/out")
[ -n "$c0" ] && [ -n "$c1" ] || fail "no CPU lists"
[ "$c0" != "$all" ] || fail "rank 0 not bound ($c0)"
[ "$c0" != "$c1" ] || fail "ranks 0 and 1 bound to the same CPUs ($c0)"
echo "PASS"
