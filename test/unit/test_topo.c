/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit test of the NUMA topology (lc_topo, hwloc): node of a cpuset and
 * the distance matrix on simulated two-node machines (an XML topology
 * with a latency matrix, a synthetic one without), the "far" rule, and
 * ring placement on this machine: a segment created with the
 * coordinator's kind of placement hook carries a preferred-node policy,
 * one created without carries none.
 */
#include "channel/lc_shm.h"
#include "locality/lc_topo.h"
#include "util/lc_params.h"

#include <errno.h>
#include <linux/mempolicy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lc_unit_check.h"

/* Two packages of one core each, node 0 = cpu 0, node 1 = cpu 1, with
 * the given relative latencies. */
static void write_xml(const char *path, int local, int remote)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
               "<topology version=\"2.0\">\n"
               " <object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\" complete_cpuset=\"0x3\" "
               "allowed_cpuset=\"0x3\" nodeset=\"0x3\" complete_nodeset=\"0x3\" allowed_nodeset=\"0x3\" "
               "gp_index=\"1\">\n");
    for (int p = 0; p < 2; p++) {
        unsigned m = 1u << p;
        const char *sets = "cpuset=\"0x%x\" complete_cpuset=\"0x%x\" nodeset=\"0x%x\" complete_nodeset=\"0x%x\"";
        char s[256];
        snprintf(s, sizeof(s), sets, m, m, m, m);
        fprintf(f, "  <object type=\"Package\" os_index=\"%d\" %s gp_index=\"%d\">\n", p, s, 2 + 3 * p);
        fprintf(f, "   <object type=\"NUMANode\" os_index=\"%d\" %s gp_index=\"%d\" local_memory=\"1073741824\"/>\n",
                p, s, 3 + 3 * p);
        fprintf(f, "   <object type=\"PU\" os_index=\"%d\" %s gp_index=\"%d\"/>\n  </object>\n", p, s, 4 + 3 * p);
    }
    /* kind 5: from the OS, means latency; length = characters of the text. */
    char values[64];
    snprintf(values, sizeof(values), "%d %d %d %d ", local, remote, remote, local);
    fprintf(f, " </object>\n"
               " <distances2 type=\"NUMANode\" nbobjs=\"2\" kind=\"5\" name=\"NUMALatency\" indexing=\"os\">\n"
               "  <indexes length=\"4\">0 1 </indexes>\n"
               "  <u64values length=\"%zu\">%s</u64values>\n"
               " </distances2>\n</topology>\n",
            strlen(values), values);
    fclose(f);
}

static cpu_set_t cpus(int a, int b)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    if (a >= 0) CPU_SET(a, &s);
    if (b >= 0) CPU_SET(b, &s);
    return s;
}

static void check_two_nodes(void)
{
    CHECK(lc_topo_loaded());
    CHECK(!lc_topo_is_this_system());
    CHECK(lc_topo_numa_count() == 2);
    CHECK(lc_topo_numa_os_index(0) == 0 && lc_topo_numa_os_index(1) == 1);
    cpu_set_t s = cpus(0, -1);
    CHECK(lc_topo_node_of_cpuset(&s) == 0);
    s = cpus(1, -1);
    CHECK(lc_topo_node_of_cpuset(&s) == 1);
    s = cpus(0, 1);
    CHECK(lc_topo_node_of_cpuset(&s) == -1); /* spans both */
    s = cpus(5, -1);
    CHECK(lc_topo_node_of_cpuset(&s) == -1); /* no node has cpu 5 */
    s = cpus(1, 5);
    CHECK(lc_topo_node_of_cpuset(&s) == 1);
    char list[64];
    lc_topo_numa_cpus(1, list, sizeof(list));
    CHECK(!strcmp(list, "1"));
    lc_topo_numa_cpus(7, list, sizeof(list));
    CHECK(!strcmp(list, ""));
    CHECK(lc_topo_distance(0, 7) == -1 && lc_topo_distance(-1, 0) == -1);
    CHECK(!lc_topo_far(-1, 1) && !lc_topo_far(0, -1) && !lc_topo_far(1, 1));
    /* Not this machine: memory is never bound to its imaginary nodes. */
    char page[64];
    CHECK(lc_topo_bind_area(page, sizeof(page), 1) == 0);
}

/* The placement hook as the coordinator passes it. */
static int place_on(void *addr, size_t len, void *arg)
{
    int rc = lc_topo_bind_area(addr, len, *(int *)arg);
    if (rc < 0) *(int *)arg = -errno - 1000;
    return rc;
}

/* Policy mode and node mask of the page at `addr`. */
static int policy_of(void *addr, unsigned long *mask)
{
    int mode = -1;
    *mask = 0;
    unsigned long m[16] = { 0 };
    if (syscall(SYS_get_mempolicy, &mode, m, 64 * 16, addr, MPOL_F_ADDR) != 0) return -1;
    *mask = m[0];
    return mode;
}

static void check_placement(void)
{
    CHECK(lc_topo_load() == 0);
    CHECK(lc_topo_is_this_system());
    int n = lc_topo_numa_count();
    CHECK(n >= 1);
    int node = lc_topo_numa_os_index(0);
    char kvs[64];
    snprintf(kvs, sizeof(kvs), "unittopo%d", (int)getpid());

    lc_shm_segment_t seg;
    int arg = node, placed = -7;
    CHECK(lc_shm_segment_create_placed(&seg, kvs, 0, 2, 1024, 8, place_on, &arg, &placed) == 0);
    unsigned long mask;
    if (placed < 0 && (arg == -EPERM - 1000 || arg == -ENOSYS - 1000)) {
        printf("topo: mbind not permitted here; placement not checked\n");
    } else {
        CHECK(placed == 1);
        int mode = policy_of(lc_shm_segment_ring(&seg, 1), &mask);
        /* Non-strict binding: the kernel prefers the node. */
        CHECK(mode == MPOL_PREFERRED || mode == MPOL_BIND || mode == MPOL_PREFERRED_MANY);
        CHECK(node < 64 && mask == 1ul << node);
        printf("topo: segment placed on node %d (policy %d, mask %#lx)\n", node, mode, mask);
    }
    /* The rings work after placement: cells initialised, seq == index. */
    CHECK(atomic_load(&((lc_shm_cell_t *)lc_shm_segment_ring(&seg, 1))[0].seq) == 0);
    lc_shm_segment_detach(&seg);

    /* Without a hook: no policy (first touch by the creator). */
    CHECK(lc_shm_segment_create_placed(&seg, kvs, 1, 1, 1024, 8, NULL, NULL, &placed) == 0);
    CHECK(placed == 0);
    CHECK(policy_of(seg.base, &mask) == MPOL_DEFAULT);
    lc_shm_segment_detach(&seg);
    lc_topo_unload();
}

int main(void)
{
    lc_params_load();
    unsetenv("HWLOC_XMLFILE");
    unsetenv("HWLOC_SYNTHETIC");
    unsetenv("HWLOC_THISSYSTEM");
    char xml[] = "/tmp/lc-unit-topo-XXXXXX";
    int fd = mkstemp(xml);
    CHECK(fd >= 0);
    close(fd);

    /* Two nodes with the OS's latency matrix. */
    write_xml(xml, 10, 21);
    setenv("HWLOC_XMLFILE", xml, 1);
    CHECK(lc_topo_load() == 0);
    check_two_nodes();
    CHECK(lc_topo_distances_measured());
    CHECK(lc_topo_distance(0, 1) == 21 && lc_topo_distance(1, 0) == 21 && lc_topo_distance(1, 1) == 10);
    CHECK(lc_topo_far(0, 1) && lc_topo_far(1, 0));
    CHECK(lc_topo_load_ms() > 0);
    lc_topo_unload();
    CHECK(!lc_topo_loaded() && lc_topo_numa_count() == 0);
    cpu_set_t s = cpus(0, -1);
    CHECK(lc_topo_node_of_cpuset(&s) == -1); /* nothing loaded: unknown */

    /* Two nodes at the local distance of each other: not far. */
    write_xml(xml, 10, 10);
    CHECK(lc_topo_load() == 0);
    CHECK(lc_topo_numa_count() == 2 && lc_topo_distance(0, 1) == 10 && !lc_topo_far(0, 1));
    lc_topo_unload();
    unsetenv("HWLOC_XMLFILE");
    unlink(xml);

    /* Synthetic: no matrix, so the assumed 10 / 20. */
    setenv("HWLOC_SYNTHETIC", "pack:2 numa:1 core:1 pu:1", 1);
    CHECK(lc_topo_load() == 0);
    check_two_nodes();
    CHECK(!lc_topo_distances_measured());
    CHECK(lc_topo_distance(0, 1) == 20 && lc_topo_distance(0, 0) == 10 && lc_topo_far(0, 1));
    lc_topo_unload();
    unsetenv("HWLOC_SYNTHETIC");

    check_placement();
    if (!failures) printf("topo: ok\n");
    return failures ? 1 : 0;
}
