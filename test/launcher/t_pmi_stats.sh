#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# LOCUS_PMI_STATS: mpiexec counts the PMI requests it answers; and MPI_Init
# reads its peers' keys in bulk (issue 13).  An empty job's network
# addresses (lc-ofi-<r>), like its identities and shared-memory cards, come
# through lc_getranks: a handful of `get`s per rank, not one per network
# peer (N(N-1) for mpiexec with every peer on the network).
. "$(dirname "$0")/lib.sh"
# count KIND: the number mpiexec reported for KIND in the last run.
count() {
    sed -n "s/.*PMI requests answered: [0-9]* (.*$1 \([0-9]*\).*/\1/p" "$T/err" | head -1
}
# Off by default: no report.
run "$MPIEXEC" -n 2 "$MPI_VICTIM" ok
expect_rc 0
grep -q "PMI requests answered" "$T/err" && fail "a report without LOCUS_PMI_STATS"
# The counter counts: 3 ranks of pmi_probe kvs, which each put one key and
# fence at least once.
run env LOCUS_PMI_STATS=1 "$MPIEXEC" -n 3 "$PMI_PROBE" kvs
expect_rc 0
pat="PMI requests answered: [0-9]* (get [0-9]*, lc_getranks [0-9]*, put [0-9]*, fence [0-9]*, other [0-9]*)"
expect_lines "$pat; mpiexec CPU [0-9.]* s" 1 "$T/err"
[ "$(count put)" -ge 3 ] && [ "$(count fence)" -ge 3 ] || fail "3 ranks: $(count put) puts, $(count fence) fences"
# n ranks, every peer (LOCUS_NET_FORCE) or every other block of 3
# (LOCUS_NET_BLOCK, emulated hosts) on the network.  Key by key, the ranks
# would get their network peers' addresses in 90 and 72 gets (n = 10).
n=10
for net in LOCUS_NET_FORCE=1 LOCUS_NET_BLOCK=3; do
    run env LOCUS_PMI_STATS=1 "$net" "$MPIEXEC" -n $n "$MPI_VICTIM" ok
    expect_rc 0
    get=$(count get)
    bulk=$(count lc_getranks)
    [ -n "$get" ] && [ -n "$bulk" ] || fail "$net: no PMI report"
    [ "$get" -le $((2 * n)) ] || fail "$net: $get PMI gets for $n ranks (bulk: $bulk), at most $((2 * n)) expected"
    [ "$bulk" -le $((3 * n)) ] || fail "$net: $bulk lc_getranks for $n ranks, at most $((3 * n)) expected"
done
echo "PASS"
