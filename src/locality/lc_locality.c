/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_locality.c — identity records. */
#include "locality/lc_locality.h"
#include "locality/lc_topo.h"
#include "util/lc_params.h"

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t lc_ns_inode(const char *name)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

const char *lc_identity_shm_dir(void)
{
    return lc_params.shm_dir[0] ? lc_params.shm_dir : "/dev/shm";
}

/* LOCUS_BOOT_ID (testing only): the kernel identity to report, with %b
 * the real boot id, %h the host name and %d the (NIS) domain name.  An
 * expansion too long for the record's field is replaced by its 64-bit
 * FNV-1a hash; a comma (the record's separator) becomes '_'.
 *
 * Why %d: an emulated VM is a set of namespaces (lc-hosts), and %h tells
 * them apart, but a container inside one has a host name of its own and
 * would count as one more kernel.  Both names live in the UTS namespace;
 * a container's copy of it (unshare --uts) keeps its VM's domain name
 * unless it sets its own, so a domain name set per emulated VM before its
 * containers are made is shared by exactly the VM and its containers, as
 * a real guest's boot id is (test/vm/t_ivshmem_hosts.sh nested). */
static void lc_identity_fake_boot_id(lc_identity_t *id)
{
    char out[256];
    char domain[65] = "";
    if (getdomainname(domain, sizeof(domain) - 1) != 0) domain[0] = 0;
    size_t n = 0;
    for (const char *p = lc_params.boot_id; *p && n < sizeof(out) - 1; p++) {
        const char *ins = NULL;
        if (p[0] == '%' && p[1] == 'b') ins = id->boot_id;
        else if (p[0] == '%' && p[1] == 'h') ins = id->host;
        else if (p[0] == '%' && p[1] == 'd') ins = domain;
        if (ins) {
            p++;
            for (; *ins && n < sizeof(out) - 1; ins++) out[n++] = *ins;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i] == ',' || out[i] == ' ') out[i] = '_';
    if (n < sizeof(id->boot_id)) {
        memcpy(id->boot_id, out, n + 1);
        return;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)out[i]) * 0x100000001b3ull;
    snprintf(id->boot_id, sizeof(id->boot_id), "fake-%016" PRIx64, h);
}

void lc_identity_self(lc_identity_t *id)
{
    memset(id, 0, sizeof(*id));
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(id->boot_id, sizeof(id->boot_id), f)) id->boot_id[0] = 0;
        fclose(f);
        id->boot_id[strcspn(id->boot_id, "\n")] = 0;
    }
    if (!id->boot_id[0]) snprintf(id->boot_id, sizeof(id->boot_id), "unknown");
    if (gethostname(id->host, sizeof(id->host)) != 0) snprintf(id->host, sizeof(id->host), "unknown");
    id->host[sizeof(id->host) - 1] = 0;
    if (lc_params.boot_id[0]) lc_identity_fake_boot_id(id);
    id->pid = getpid();
    id->uid = geteuid();
    id->ns_ipc = lc_ns_inode("ipc");
    id->ns_pid = lc_ns_inode("pid");
    id->ns_net = lc_ns_inode("net");
    id->ns_uts = lc_ns_inode("uts");
    id->ns_mnt = lc_ns_inode("mnt");
    id->ns_user = lc_ns_inode("user");
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        for (int c = 0; c < 64 * LC_CPUSET_WORDS && c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set)) id->cpus[c / 64] |= 1ull << (c % 64);
    } else {
        id->cpus[0] = 1;
    }
    id->numa_node = lc_topo_node_of_self();
    struct stat st;
    if (stat(lc_identity_shm_dir(), &st) == 0) {
        id->shm_dev = (uint64_t)st.st_dev;
        id->shm_ino = (uint64_t)st.st_ino;
    }
}

/* Comma-separated: PMI-1 values may not contain spaces. */
void lc_identity_format(const lc_identity_t *id, char *buf, size_t len)
{
    snprintf(buf, len,
             "%s,%s,%d,%u,%" PRIx64 ",%" PRIx64 ",%" PRIx64 ",%" PRIx64 ",%" PRIx64 ",%" PRIx64 ",%" PRIx64
             ",%" PRIx64 ",%" PRIx64 ":%" PRIx64 ":%" PRIx64 ":%" PRIx64 ",%d,%" PRIx64 ":%" PRIx64 ",%" PRIx64,
             id->boot_id, id->host, (int)id->pid, (unsigned)id->uid, id->ns_ipc, id->ns_pid, id->ns_net,
             id->ns_uts, id->ns_mnt, id->ns_user, id->cookie_addr, id->cookie, id->cpus[0], id->cpus[1],
             id->cpus[2], id->cpus[3], id->numa_node, id->shm_dev, id->shm_ino, id->ivs_region);
}

int lc_identity_parse(const char *text, lc_identity_t *id)
{
    memset(id, 0, sizeof(*id));
    int pid, end = -1;
    unsigned uid;
    int n = sscanf(text,
                   "%39[^,],%63[^,],%d,%u,%" SCNx64 ",%" SCNx64 ",%" SCNx64 ",%" SCNx64 ",%" SCNx64
                   ",%" SCNx64 ",%" SCNx64 ",%" SCNx64 ",%" SCNx64 ":%" SCNx64 ":%" SCNx64 ":%" SCNx64
                   ",%d,%" SCNx64 ":%" SCNx64 ",%" SCNx64 "%n",
                   id->boot_id, id->host, &pid, &uid, &id->ns_ipc, &id->ns_pid, &id->ns_net, &id->ns_uts,
                   &id->ns_mnt, &id->ns_user, &id->cookie_addr, &id->cookie, &id->cpus[0], &id->cpus[1],
                   &id->cpus[2], &id->cpus[3], &id->numa_node, &id->shm_dev, &id->shm_ino, &id->ivs_region, &end);
    /* Every field, and nothing after them (a record of another version). */
    if (n != 20 || end < 0 || text[end] != 0 || id->numa_node < -1) return -1;
    id->pid = (pid_t)pid;
    id->uid = (uid_t)uid;
    return 0;
}

bool lc_identity_same_kernel(const lc_identity_t *a, const lc_identity_t *b)
{
    return !strcmp(a->boot_id, b->boot_id) && a->uid == b->uid;
}

int lc_locality_union_cores(const lc_identity_t *ids, const int *which, int n)
{
    uint64_t u[LC_CPUSET_WORDS] = { 0 };
    for (int i = 0; i < n; i++)
        for (int w = 0; w < LC_CPUSET_WORDS; w++) u[w] |= ids[which[i]].cpus[w];
    int count = 0;
    for (int w = 0; w < LC_CPUSET_WORDS; w++) count += __builtin_popcountll(u[w]);
    return count ? count : 1;
}
