/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_topo.h — the NUMA part of the host's hardware topology (hwloc).
 *
 * Loaded once per process at wire-up (lc_topo_load), read while the
 * coordinator decides per-pair thresholds and places ring memory, then
 * dropped (lc_topo_unload): nothing here runs per message.
 *
 * NUMA nodes are named by their OS index (the number Linux and numactl
 * use), so two ranks on one kernel agree on the names.  hwloc honours
 * HWLOC_XMLFILE and HWLOC_SYNTHETIC: a topology that is not this
 * system's (tests simulate two nodes that way) is used for the decisions,
 * but memory is then never bound (lc_topo_bind_area says so).
 */
#ifndef LC_TOPO_H
#define LC_TOPO_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define LC_TOPO_MAX_NODES 64       /* nodes beyond this are ignored (node -1) */
#define LC_TOPO_LOCAL_DISTANCE 10  /* assumed when the OS gives no matrix */
#define LC_TOPO_REMOTE_DISTANCE 20

/* Load the topology (idempotent).  Returns 0, or -1 when hwloc could not
 * load it (logged as a warning: NUMA awareness is then off, every node
 * is "unknown"). */
int lc_topo_load(void);
void lc_topo_unload(void);
bool lc_topo_loaded(void);

/* Version of hwloc Locus was built with ("2.9.0"). */
const char *lc_topo_hwloc_version(void);
/* Milliseconds hwloc took to initialise and load (0 before a load). */
double lc_topo_load_ms(void);
/* Topology of the machine we run on (not XML / synthetic)? */
bool lc_topo_is_this_system(void);

/* NUMA nodes of the topology (0 if not loaded), and the OS index of the
 * i-th one (i < lc_topo_numa_count(), in OS-index order). */
int lc_topo_numa_count(void);
int lc_topo_numa_os_index(int i);
/* The node's cpus as a list ("0-3,8"); "" for an unknown node. */
void lc_topo_numa_cpus(int node, char *buf, size_t len);

/* The one NUMA node whose cpus intersect `set` (OS index), or -1 when the
 * set spans several nodes, touches none, or no topology is loaded. */
int lc_topo_node_of_cpuset(const cpu_set_t *set);
/* Node of this thread's affinity mask (lc_topo_node_of_cpuset). */
int lc_topo_node_of_self(void);

/* Relative latency between two nodes (OS indices): the OS's matrix when
 * the topology has one (lc_topo_distances_measured), else 10 on the same
 * node and 20 between nodes.  -1 if either node is unknown. */
int lc_topo_distance(int a, int b);
bool lc_topo_distances_measured(void);
/* Whether a pair on nodes a, b is "far": both known, different, and
 * their distance above a's local distance. */
bool lc_topo_far(int a, int b);

/* Ask the kernel to allocate the pages of [addr, addr+len) on `node`
 * (preferred, not strict: a full node falls back to another).  Call it
 * before the pages are first allocated.  Returns 1 when applied, 0 when
 * not applicable (unknown node, topology not of this system), -1 on
 * error (errno set). */
int lc_topo_bind_area(void *addr, size_t len, int node);

#endif
