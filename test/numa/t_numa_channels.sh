#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# NUMA awareness end to end (issue 4).  This machine may have one NUMA
# node, so two are simulated through hwloc (HWLOC_SYNTHETIC: no distance
# matrix, so the assumed 10/20; HWLOC_XMLFILE: a matrix with 21):
#   two nodes, ranks bound to cpus 0 and 1   -> "NUMA nodes 0,1", CMA from
#                                               LOCUS_CMA_THRESHOLD_XNUMA:
#                                               a 1 MiB message is pulled
#   two nodes, ranks not bound (span both)   -> "NUMA node unknown", the
#                                               same-node CMA_THRESHOLD (auto:
#                                               measured; the first 1 MiB
#                                               message is a pipeline sample)
#   two nodes, bound, XNUMA threshold 2 MiB  -> 1 MiB pipelined again
#   this machine's topology                  -> node known, rings bound to it
#   LOCUS_NUMA=0                             -> "NUMA not read"
# numa_pull tells a pull from the pipeline by behaviour (see numa_pull.c).
. "$(dirname "$0")/../launcher/lib.sh"
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 cpus to bind two ranks"; exit 77; }
SYN="pack:2 numa:1 core:1 pu:1"
unset HWLOC_XMLFILE HWLOC_SYNTHETIC LOCUS_NUMA LOCUS_CMA_THRESHOLD LOCUS_CMA_THRESHOLD_XNUMA LOCUS_CMA

# job MODE BIND [NAME=VALUE]...: numa_pull MODE on 2 ranks, -bind-to BIND,
# the channel matrix on; the reason of rank 0 -> rank 1 in $REASON.
job() {
    mode=$1 bind=$2
    shift 2
    run env LOCUS_SHOW_CHANNELS=1 "$@" "$MPIEXEC" -n 2 -bind-to "$bind" "$NUMA_PULL" "$mode"
    REASON=$(sed -n 's/^  rank 0 -> rank 1: //p' "$T/out")
    case $REASON in
    shm+cma*) ;;
    shm*) echo "SKIP: CMA is not available here ($REASON)"; exit 77 ;;
    *) fail "rank 0 -> rank 1 is not shared memory: '$REASON'" ;;
    esac
    expect_rc 0
    echo "ok: $* -bind-to $bind: $(grep '^numa_pull' "$T/out" | sed 's/^numa_pull: //')"
}
reason_has() {
    case $REASON in
    *"$1"*) ;;
    *) fail "rank 0 -> rank 1 reason lacks '$1': $REASON" ;;
    esac
}

job pull core HWLOC_SYNTHETIC="$SYN"
reason_has "NUMA nodes 0,1 (distance 20), CMA from 64 KiB"
expect_out "NUMA of rank 0: 2 node(s) (HWLOC_XMLFILE/HWLOC_SYNTHETIC), distances assumed"
expect_out "rings of rank 0: NUMA node 0 (topology not of this system: not bound)"

job pipeline none HWLOC_SYNTHETIC="$SYN"
reason_has "NUMA node unknown, CMA or pipeline measured from 64 KiB"

job pipeline core HWLOC_SYNTHETIC="$SYN" LOCUS_CMA_THRESHOLD_XNUMA=2m
reason_has "NUMA nodes 0,1 (distance 20), CMA from 2 MiB"

# A distance matrix from the topology (as Linux gives it on NUMA hosts).
cat > "$T/two.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
 <object type="Machine" os_index="0" cpuset="0x3" complete_cpuset="0x3" allowed_cpuset="0x3" nodeset="0x3" complete_nodeset="0x3" allowed_nodeset="0x3" gp_index="1">
  <object type="Package" os_index="0" cpuset="0x1" complete_cpuset="0x1" nodeset="0x1" complete_nodeset="0x1" gp_index="2">
   <object type="NUMANode" os_index="0" cpuset="0x1" complete_cpuset="0x1" nodeset="0x1" complete_nodeset="0x1" gp_index="3" local_memory="1073741824"/>
   <object type="PU" os_index="0" cpuset="0x1" complete_cpuset="0x1" nodeset="0x1" complete_nodeset="0x1" gp_index="4"/>
  </object>
  <object type="Package" os_index="1" cpuset="0x2" complete_cpuset="0x2" nodeset="0x2" complete_nodeset="0x2" gp_index="5">
   <object type="NUMANode" os_index="1" cpuset="0x2" complete_cpuset="0x2" nodeset="0x2" complete_nodeset="0x2" gp_index="6" local_memory="1073741824"/>
   <object type="PU" os_index="1" cpuset="0x2" complete_cpuset="0x2" nodeset="0x2" complete_nodeset="0x2" gp_index="7"/>
  </object>
 </object>
 <distances2 type="NUMANode" nbobjs="2" kind="5" name="NUMALatency" indexing="os">
  <indexes length="4">0 1 </indexes>
  <u64values length="12">10 21 21 10 </u64values>
 </distances2>
</topology>
EOF
job pull core HWLOC_XMLFILE="$T/two.xml"
reason_has "NUMA nodes 0,1 (distance 21), CMA from 64 KiB"
expect_out "distances from the topology"

# This machine: each rank's node is known (one node here, or the node of
# its core), its segment bound there; same node -> same-node threshold.
job pipeline core
grep -q "^  rings of rank 0: segment bound to NUMA node [0-9]" "$T/out" ||
    grep -q "^  rings of rank 0: binding to NUMA node [0-9]* failed" "$T/out" ||
    fail "rank 0's rings were not placed on its node"
case $REASON in
*"same NUMA node"*", CMA or pipeline measured from 64 KiB"*|*"NUMA nodes "*", CMA from "*) ;;
*) fail "rank 0 -> rank 1: no NUMA node: $REASON" ;;
esac

job pipeline core HWLOC_SYNTHETIC="$SYN" LOCUS_NUMA=0
reason_has "NUMA not read (LOCUS_NUMA=0), CMA or pipeline measured from 64 KiB"
echo "PASS"
