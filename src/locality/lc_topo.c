/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_topo.c — NUMA nodes, their cpus and distances, through hwloc. */
#include "locality/lc_topo.h"
#include "util/lc_util.h"

#include <hwloc.h>
#include <hwloc/distances.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    hwloc_topology_t topo;     /* NULL when not loaded */
    double load_ms;
    bool this_system;
    int nnodes;
    hwloc_obj_t node[LC_TOPO_MAX_NODES]; /* by position; OS index in node[i]->os_index */
    bool measured;                       /* dist[][] comes from the topology */
    int dist[LC_TOPO_MAX_NODES][LC_TOPO_MAX_NODES];
} lc_topo;

/* Only what the NUMA decisions need: caches, I/O devices and misc
 * objects are not discovered, nor memory attributes and CPU kinds, and
 * the x86 CPUID backend is skipped (CPUID traps to the hypervisor on a
 * VM; Linux's sysfs already says which cpus belong to which node).
 * Packages, groups and cores are kept: NUMA nodes hang below them, and
 * dropping them would merge the nodes' cpusets in XML/synthetic input. */
static void lc_topo_restrict(hwloc_topology_t t)
{
    hwloc_topology_set_cache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(t, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
#if HWLOC_API_VERSION >= 0x00020800
    hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS | HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS);
#endif
#if HWLOC_API_VERSION >= 0x00020100
    hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
}

/* Copy the relative-latency matrix between NUMA nodes, or the assumed
 * 10/20 one when the topology has none (one-node machines, most VMs). */
static void lc_topo_read_distances(void)
{
    for (int i = 0; i < lc_topo.nnodes; i++)
        for (int j = 0; j < lc_topo.nnodes; j++)
            lc_topo.dist[i][j] = i == j ? LC_TOPO_LOCAL_DISTANCE : LC_TOPO_REMOTE_DISTANCE;
    lc_topo.measured = false;
    struct hwloc_distances_s *d = NULL;
    unsigned nr = 1;
    if (lc_topo.nnodes < 2 ||
        hwloc_distances_get_by_type(lc_topo.topo, HWLOC_OBJ_NUMANODE, &nr, &d,
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 || nr == 0)
        return;
    /* Use it only if it covers every node: a partial matrix would mix
     * measured and assumed values. */
    bool complete = true;
    int idx[LC_TOPO_MAX_NODES];
    for (int i = 0; i < lc_topo.nnodes && complete; i++) {
        idx[i] = hwloc_distances_obj_index(d, lc_topo.node[i]);
        complete = idx[i] >= 0;
    }
    if (complete) {
        for (int i = 0; i < lc_topo.nnodes; i++)
            for (int j = 0; j < lc_topo.nnodes; j++) {
                hwloc_uint64_t v = d->values[(unsigned)idx[i] * d->nbobjs + (unsigned)idx[j]];
                lc_topo.dist[i][j] = v > 1000000 ? 1000000 : (int)v;
            }
        lc_topo.measured = true;
    }
    hwloc_distances_release(lc_topo.topo, d);
}

int lc_topo_load(void)
{
    if (lc_topo.topo) return 0;
    double t0 = lc_time_now();
    hwloc_topology_t t;
    /* hwloc_topology_init dlopens every installed hwloc plugin (Debian:
     * PCI, OpenCL, GL, libxml2 — and with them libX11, ICU, OpenCL...),
     * which costs milliseconds and maps libraries into every rank, for
     * discovery we filter out anyway.  An empty plugin path loads none
     * (the Linux, XML and synthetic backends are built into libhwloc).
     * Only for this call, and never over the user's own setting. */
    bool no_plugins = getenv("HWLOC_PLUGINS_PATH") == NULL;
    if (no_plugins) setenv("HWLOC_PLUGINS_PATH", "", 1);
    int rc = hwloc_topology_init(&t);
    int err = errno;
    if (no_plugins) unsetenv("HWLOC_PLUGINS_PATH");
    if (rc != 0) {
        lc_log_warn("hwloc cannot initialise a topology (%s): NUMA awareness is off", strerror(err));
        return -1;
    }
    lc_topo_restrict(t);
    if (hwloc_topology_load(t) != 0) {
        lc_log_warn("hwloc cannot load this host's topology (%s; check HWLOC_XMLFILE / HWLOC_SYNTHETIC if "
                    "set): NUMA awareness is off", strerror(errno));
        hwloc_topology_destroy(t);
        return -1;
    }
    lc_topo.topo = t;
    lc_topo.load_ms = (lc_time_now() - t0) * 1e3;
    lc_topo.this_system = hwloc_topology_is_thissystem(t) != 0;
    /* hwloc silently falls back to this machine when the XML file cannot
     * be read or the synthetic description is invalid: say so (unless
     * HWLOC_THISSYSTEM=1 declares the input to be this machine). */
    const char *xml = getenv("HWLOC_XMLFILE"), *syn = getenv("HWLOC_SYNTHETIC");
    if (lc_topo.this_system && !getenv("HWLOC_THISSYSTEM") && ((xml && *xml) || (syn && *syn)))
        lc_log_warn("hwloc ignored %s=\"%.200s\" (unreadable file or invalid description; "
                    "HWLOC_SYNTHETIC_VERBOSE=1 / HWLOC_XML_VERBOSE=1 say why): using this machine's topology",
                    xml && *xml ? "HWLOC_XMLFILE" : "HWLOC_SYNTHETIC", xml && *xml ? xml : syn);
    /* Logical order of NUMA nodes is OS-index order on Linux and in XML
     * made by lstopo; the names we publish are OS indices anyway. */
    int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    lc_topo.nnodes = 0;
    for (int i = 0; i < n && lc_topo.nnodes < LC_TOPO_MAX_NODES; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (o) lc_topo.node[lc_topo.nnodes++] = o;
    }
    lc_topo_read_distances();
    return 0;
}

void lc_topo_unload(void)
{
    if (lc_topo.topo) hwloc_topology_destroy(lc_topo.topo);
    lc_topo.topo = NULL;
    lc_topo.nnodes = 0;
}

bool lc_topo_loaded(void) { return lc_topo.topo != NULL; }
const char *lc_topo_hwloc_version(void) { return HWLOC_VERSION; }
double lc_topo_load_ms(void) { return lc_topo.load_ms; }
bool lc_topo_is_this_system(void) { return lc_topo.topo && lc_topo.this_system; }
int lc_topo_numa_count(void) { return lc_topo.topo ? lc_topo.nnodes : 0; }

int lc_topo_numa_os_index(int i)
{
    return i >= 0 && i < lc_topo_numa_count() ? (int)lc_topo.node[i]->os_index : -1;
}

/* Position in lc_topo.node[] of the node with OS index `os`, or -1. */
static int lc_topo_pos(int os)
{
    for (int i = 0; os >= 0 && i < lc_topo_numa_count(); i++)
        if ((int)lc_topo.node[i]->os_index == os) return i;
    return -1;
}

void lc_topo_numa_cpus(int node, char *buf, size_t len)
{
    int i = lc_topo_pos(node);
    if (len) buf[0] = 0;
    if (i >= 0 && len) hwloc_bitmap_list_snprintf(buf, len, lc_topo.node[i]->cpuset);
}

int lc_topo_node_of_cpuset(const cpu_set_t *set)
{
    if (!lc_topo.topo) return -1;
    hwloc_bitmap_t b = hwloc_bitmap_alloc();
    if (!b) return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set)) hwloc_bitmap_set(b, (unsigned)c);
    int found = -1;
    for (int i = 0; i < lc_topo.nnodes; i++) {
        if (!lc_topo.node[i]->cpuset || !hwloc_bitmap_intersects(lc_topo.node[i]->cpuset, b)) continue;
        if (found >= 0) {
            found = -1; /* spans several nodes */
            break;
        }
        found = (int)lc_topo.node[i]->os_index;
    }
    hwloc_bitmap_free(b);
    return found;
}

int lc_topo_node_of_self(void)
{
    /* Our own mask, not hwloc_get_cpubind: with an XML or synthetic
     * topology hwloc would report the whole machine. */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    return lc_topo_node_of_cpuset(&set);
}

int lc_topo_distance(int a, int b)
{
    int i = lc_topo_pos(a), j = lc_topo_pos(b);
    return i < 0 || j < 0 ? -1 : lc_topo.dist[i][j];
}

bool lc_topo_distances_measured(void) { return lc_topo.topo && lc_topo.measured; }

bool lc_topo_far(int a, int b)
{
    if (a < 0 || b < 0 || a == b) return false;
    int d = lc_topo_distance(a, b), local = lc_topo_distance(a, a);
    return d >= 0 && local >= 0 && d > local;
}

int lc_topo_bind_area(void *addr, size_t len, int node)
{
    int i = lc_topo_pos(node);
    if (i < 0 || !lc_topo.this_system) return 0;
    /* Not HWLOC_MEMBIND_STRICT: hwloc then asks Linux for a preferred
     * node, so a full node spills over instead of failing the job. */
    if (hwloc_set_area_membind(lc_topo.topo, addr, len, lc_topo.node[i]->nodeset, HWLOC_MEMBIND_BIND,
                               HWLOC_MEMBIND_BYNODESET) != 0)
        return -1;
    return 1;
}
