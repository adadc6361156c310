/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * locus-info — what this build of Locus is and what this host offers.
 *
 *   locus-info              version, build, channels usable here
 *   locus-info --params     every LOCUS_* parameter: value, default, help
 *   locus-info --params --markdown
 *                           docs/params.md: the same tables as Markdown,
 *                           defaults only (test params.doc compares)
 *   locus-info --locality   this process's identity (kernel, namespaces,
 *                           shared-memory domain) and the host's NUMA
 *                           nodes, their cpus and distances
 *   locus-info --shm-footprint N
 *                           the shared memory a job of N ranks on this
 *                           host needs (the formula MPI_Init checks the
 *                           segment directory's free space against)
 *   locus-info --coll-algorithms
 *                           every algorithm of every collective, one
 *                           "NAME algorithm" line each (LOCUS_COLL_<NAME>);
 *                           the test list forces each in turn from it
 *
 * The channel checks are real: a shared-memory segment is created and
 * mapped, and CMA is probed by a forked child reading a cookie out of
 * this process, exactly as MPI_Init proves it between ranks.
 */
#include "channel/lc_cma.h"
#include "channel/lc_ofi.h"
#include "channel/lc_shm.h"
#include "coll/lc_coll.h"
#include "lc_config.h"
#include "channel/lc_ivshmem.h"
#include "locality/lc_locality.h"
#include "locality/lc_topo.h"
#include "util/lc_params.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static void print_version(void)
{
    printf("Locus MPI %s\n", LOCUS_VERSION);
    printf("  MPI standard:   %d.%d (MPICH ABI: libmpi.so.12, libmpich.so.12)\n", MPI_VERSION, MPI_SUBVERSION);
    printf("  build:          %s, %s%s\n", LOCUS_BUILD_TYPE, LOCUS_C_COMPILER,
           LOCUS_SANITIZE_BUILD == 1   ? ", AddressSanitizer+UBSan"
           : LOCUS_SANITIZE_BUILD == 2 ? ", ThreadSanitizer"
                                       : "");
    printf("  thread level:   MPI_THREAD_MULTIPLE\n");
}

static void check_shm(void)
{
    char kvs[64];
    snprintf(kvs, sizeof(kvs), "info%d", (int)getpid());
    lc_shm_segment_t seg;
    lc_shm_geometry_t g;
    lc_shm_geometry_default(1, &g);
    int ok = lc_shm_segment_create_geom(&seg, kvs, 0, &g, NULL, NULL, NULL) == 0;
    if (ok) lc_shm_segment_detach(&seg);
    struct statvfs vfs;
    char space[64] = "";
    if (statvfs("/dev/shm", &vfs) == 0)
        snprintf(space, sizeof(space), ", /dev/shm has %.0f MiB free",
                 (double)vfs.f_bavail * (double)vfs.f_frsize / (1024.0 * 1024.0));
    printf("  shm   %s (POSIX shared memory segment created and mapped%s)\n", ok ? "yes" : "NO ", space);
}

static void check_cma(void)
{
    lc_cma_allow_peers();
    uint64_t addr = lc_cma_cookie_addr(), cookie = lc_cma_cookie_value();
    pid_t parent = getpid();
    fflush(stdout); /* or the child flushes our buffered lines again */
    pid_t child = fork();
    if (child == 0) {
        char why[256];
        bool ok = lc_cma_probe(parent, addr, cookie, why, sizeof(why));
        if (!ok) printf("        (%s)\n", why);
        fflush(stdout);
        _exit(ok ? 0 : 1);
    }
    int status = 1;
    waitpid(child, &status, 0);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    printf("  cma   %s (process_vm_readv of a cookie in another process%s)\n", ok ? "yes" : "NO ",
           ok ? "" : "; rendezvous falls back to the two-copy pipeline");
    if (!lc_params.cma) printf("        disabled by LOCUS_CMA=0\n");
}

static void check_ofi(void)
{
    /* Open a real endpoint, as MPI_Init does for network peers. */
    lc_peer_t self;
    memset(&self, 0, sizeof(self));
    lc_list_init(&self.pending);
    char addr[LC_OFI_ADDR_TEXT_MAX];
    fflush(stdout);
    int ok = lc_ofi_open(&self, 0, 1, 1, addr, sizeof(addr)) == 0;
    if (ok) {
        printf("  ofi   yes (libfabric endpoint opened: %s)\n", lc_ofi_describe());
        lc_ofi_close();
    } else {
        printf("  ofi   NO  (no usable libfabric provider; see the message above and `fi_info -l`)\n");
    }
}

/* The NUMA view of this host, as a rank's MPI_Init sees it (the
 * topology is loaded, or failed to, when this is called). */
static void print_numa(const lc_identity_t *id)
{
    if (!lc_params.numa) {
        printf("NUMA: not read (LOCUS_NUMA=0): every pair gets the same-node settings\n");
        return;
    }
    if (!lc_topo_loaded()) {
        printf("NUMA: hwloc could not load the topology (see above): every rank's node is unknown\n");
        return;
    }
    int n = lc_topo_numa_count();
    printf("NUMA (hwloc %s, topology loaded in %.2f ms%s):\n", lc_topo_hwloc_version(), lc_topo_load_ms(),
           lc_topo_is_this_system() ? "" : ", from HWLOC_XMLFILE/HWLOC_SYNTHETIC: simulated, memory never bound");
    for (int i = 0; i < n; i++) {
        char cpus[256];
        lc_topo_numa_cpus(lc_topo_numa_os_index(i), cpus, sizeof(cpus));
        printf("  node %d   cpus %s\n", lc_topo_numa_os_index(i), cpus[0] ? cpus : "(none: memory only)");
    }
    printf("  distances (relative latency, %s):\n      ",
           lc_topo_distances_measured() ? "from the topology" : "none in the topology: assumed 10 same node, 20 other");
    for (int j = 0; j < n; j++) printf(" %5d", lc_topo_numa_os_index(j));
    printf("\n");
    for (int i = 0; i < n; i++) {
        printf("  %5d", lc_topo_numa_os_index(i));
        for (int j = 0; j < n; j++) printf(" %5d", lc_topo_distance(lc_topo_numa_os_index(i), lc_topo_numa_os_index(j)));
        printf("\n");
    }
    if (id->numa_node >= 0)
        printf("  this process: NUMA node %d\n", id->numa_node);
    else
        printf("  this process: NUMA node unknown (its cpus span %s)\n", n > 1 ? "several nodes" : "no node");
    printf("A rank's node is the one node its affinity mask lies in (bind ranks, e.g. mpiexec -bind-to\n"
           "core, to give them one); it places the rank's ring segment there. Shared-memory pairs on\n"
           "two nodes farther apart than local pull rendezvous messages with CMA from\n"
           "LOCUS_CMA_THRESHOLD_XNUMA (%zu B) instead of LOCUS_CMA_THRESHOLD (%zu B).\n",
           lc_params.cma_threshold_xnuma, lc_params.cma_threshold);
}

/* The IVSHMEM region this process would use (LOCUS_IVSHMEM, else the
 * first ivshmem-plain PCI device) and its slots. */
static void print_ivshmem(void)
{
    uint64_t id = lc_ivshmem_probe();
    const lc_ivs_region_t *r = lc_ivshmem_region();
    if (id == (uint64_t)-1 || !r) {
        printf("  IVSHMEM     %s\n", id == (uint64_t)-1 ? "configured or found, but unusable (see above)"
                                                          : "none (no ivshmem-plain device, LOCUS_IVSHMEM unset or off)");
        return;
    }
    printf("  IVSHMEM     region %016llx: %s, %zu bytes, %u slots of %llu bytes\n", (unsigned long long)id, r->path,
           r->size, r->nslots, (unsigned long long)r->slot_bytes);
    uint32_t now = lc_ivs_now();
    for (uint32_t i = 0; i < r->nslots; i++) {
        lc_ivs_slot_t *s = lc_ivs_slot(r, i);
        uint64_t own = atomic_load_explicit(&s->own, memory_order_acquire);
        if (!own) continue;
        printf("    slot %u: job %08llx rank %u pid %u, renewed %d s ago, %u rings of %u cells of %u bytes\n", i,
               (unsigned long long)(s->job & 0xffffffffu), s->rank, s->pid, (int)(int32_t)(now - (uint32_t)(own >> 32)),
               s->nrings, s->ncells, s->cell_size);
    }
    lc_ivshmem_close();
}

static void print_locality(void)
{
    lc_identity_t id;
    /* Loaded before the identity (its NUMA node), as MPI_Init does. */
    if (lc_params.numa) lc_topo_load();
    lc_identity_self(&id);
    printf("Locality of this process:\n");
    printf("  host name   %s\n  boot id     %s\n  uid         %u\n", id.host, id.boot_id, (unsigned)id.uid);
    printf("  namespaces  ipc %llu, pid %llu, net %llu, uts %llu, mnt %llu, user %llu\n",
           (unsigned long long)id.ns_ipc, (unsigned long long)id.ns_pid, (unsigned long long)id.ns_net,
           (unsigned long long)id.ns_uts, (unsigned long long)id.ns_mnt, (unsigned long long)id.ns_user);
    printf("  shm domain  %s: device %u:%u, inode %llu%s\n", lc_identity_shm_dir(),
           major((dev_t)id.shm_dev), minor((dev_t)id.shm_dev), (unsigned long long)id.shm_ino,
           id.shm_dev || id.shm_ino ? "" : " (cannot stat it)");
    int all = 0;
    printf("  usable cores %d\n", lc_locality_union_cores(&id, &all, 1));
    print_ivshmem();
    printf("Ranks with the same boot id and uid try shared memory; it is used only if each can map\n"
           "the other's segment, and CMA only if a probe read of the peer's cookie succeeds. Ranks\n"
           "whose shm domains (device:inode) are equal see the same segment directory. Ranks on\n"
           "different kernels (VMs) that map the same IVSHMEM region (equal ids) use its rings.\n");
    print_numa(&id);
    lc_topo_unload();
}

/* docs/params.md.  Everything in it comes from the tables, never from the
 * environment, so the file is the same wherever it is generated. */
static void print_params_markdown(void)
{
    printf("# Parameters\n\n"
           "<!-- Generated by `locus-info --params --markdown` from the parameter table (src/util/lc_params.c)\n"
           "     and the collective selection table (src/coll/lc_coll_select.c); do not edit. After changing\n"
           "     a table: build/bin/locus-info --params --markdown > docs/params.md (or make params-doc).\n"
           "     The test params.doc fails while this file differs from what locus-info prints. -->\n\n"
           "Every tunable of Locus is an environment variable `LOCUS_<NAME>`, read once: by every rank at\n"
           "MPI_Init, or by mpiexec when it starts. A bad value is reported and the default used.\n"
           "`locus-info --params` lists the values in effect in the current environment.\n\n"
           "Sizes take the binary suffixes k, m, g and an optional b (`8k` = `8kb` = 8192); booleans\n"
           "1/0, yes/no, on/off, true/false, y/n; enumerations one of their words, in any case.\n\n"
           "| variable | type | default | read by |\n|---|---|---|---|\n");
    lc_params_print_markdown_index(stdout);
    printf("| [`LOCUS_COLL_<NAME>`](#locus_coll_name) | enum | `auto` | ranks |\n\n");
    lc_params_print_markdown(stdout);
    lc_coll_params_print_markdown(stdout);
}

/* The footprint of a job of n ranks on this host: per segment and in all,
 * from lc_shm_segment_bytes, with the directory's free space. */
static int print_shm_footprint(const char *arg)
{
    char *end;
    long n = strtol(arg, &end, 10);
    if (*end || n < 1 || n > 1000000) {
        fprintf(stderr, "locus-info: --shm-footprint wants a rank count (1..1000000), not \"%s\"\n", arg);
        return 1;
    }
    const char *dir = lc_params.shm_dir[0] ? lc_params.shm_dir : "/dev/shm";
    lc_shm_geometry_t g;
    lc_shm_geometry_default((uint32_t)n, &g);
    size_t seg = lc_shm_segment_bytes(&g);
    uint64_t all = n > 1 ? lc_shm_host_bytes((uint32_t)n) : 0;
    printf("Shared memory for %ld ranks on this host (in %s):\n", n, dir);
    if (n == 1) {
        printf("  none: a rank alone on its host maps no segment\n");
        return 0;
    }
    printf("  per rank: %zu bytes (%.2f MiB) = 4096 header + %u rings x %u cells x %u B (rounded up to 4 KiB)"
           " + pool of %u cells x %u B + %u big cells x %u B\n",
           seg, seg / 1048576.0, g.nrings, g.ncells, g.cell_size, g.pool_cells, g.pool_cell_size, g.big_cells,
           g.big_cell_size);
    printf("  job:      %llu bytes (%.1f MiB) = %ld x per rank\n", (unsigned long long)all, all / 1048576.0, n);
    struct statvfs vfs;
    if (statvfs(dir, &vfs) == 0) {
        double avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
        printf("  %s: %.1f MiB free of %.1f MiB: %s\n", dir, avail / 1048576.0,
               (double)vfs.f_blocks * (double)vfs.f_frsize / 1048576.0,
               avail >= (double)all ? "enough" : "NOT enough (MPI_Init would fail)");
    }
    return 0;
}

int main(int argc, char **argv)
{
    lc_params_load_for(LC_PARAM_RANKS | LC_PARAM_LAUNCHER);
    if (argc == 3 && !strcmp(argv[1], "--params") && !strcmp(argv[2], "--markdown")) {
        print_params_markdown();
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--params")) {
        lc_params_print(stdout);
        lc_coll_params_print(stdout);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--locality")) {
        print_locality();
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--shm-footprint")) return print_shm_footprint(argv[2]);
    if (argc > 1 && !strcmp(argv[1], "--coll-algorithms")) {
        lc_coll_algorithms_print(stdout);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: locus-info [--params [--markdown] | --locality | --shm-footprint N | "
                        "--coll-algorithms]\n");
        return 1;
    }
    print_version();
    printf("Channels on this host:\n  self  yes\n");
    check_shm();
    check_cma();
    check_ofi();
    printf("Parameters: locus-info --params\n");
    return 0;
}
