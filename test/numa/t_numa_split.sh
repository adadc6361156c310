#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# MPI_Comm_split_type by NUMA node (issue 11) under a simulated two-node
# topology (this machine may have one): 4 ranks bound round-robin to cpus
# 0 and 1 must split into the ranks of cpu 0 and those of cpu 1, for
# MPI_COMM_TYPE_HW_GUIDED "NUMANode" and for HW_UNGUIDED; unbound ranks
# span both nodes and get MPI_COMM_NULL (numa_split.c).
. "$(dirname "$0")/../launcher/lib.sh"
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 cpus to bind ranks to two nodes"; exit 77; }
unset HWLOC_XMLFILE LOCUS_NUMA
SYN="pack:2 numa:1 core:1 pu:1"
run env HWLOC_SYNTHETIC="$SYN" "$MPIEXEC" -n 4 -bind-to core "$NUMA_SPLIT"
expect_rc 0
expect_out "No Errors"
echo "ok: 4 ranks bound to 2 simulated NUMA nodes split by node"
run env HWLOC_SYNTHETIC="$SYN" "$MPIEXEC" -n 2 -bind-to none "$NUMA_SPLIT" unbound
expect_rc 0
expect_out "No Errors"
echo "ok: unbound ranks get MPI_COMM_NULL"
