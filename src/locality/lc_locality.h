/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_locality.h — who a process is, as far as co-residence goes.
 *
 * Each rank publishes an identity record; two ranks with the same kernel
 * boot id and user *may* share memory, which the coordinator then proves
 * by opening each other's segment and reading a CMA cookie.  Namespace
 * inodes decide whether the segment proof may fail (other containers);
 * the shared-memory domain's identity is there for the diagnostics, the
 * NUMA node for the per-pair decisions (lc_topo.h).
 */
#ifndef LC_LOCALITY_H
#define LC_LOCALITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LC_CPUSET_WORDS 4

typedef struct lc_identity {
    char boot_id[40];
    char host[64];
    pid_t pid;
    uid_t uid;
    uint64_t ns_ipc, ns_pid, ns_net, ns_uts, ns_mnt, ns_user;
    uint64_t cookie_addr, cookie;   /* CMA probe target */
    uint64_t cpus[LC_CPUSET_WORDS];  /* affinity mask (first 256 CPUs) */
    int numa_node;                   /* the one NUMA node (OS index) its cpus lie in; -1 unknown */
    /* Shared-memory domain: st_dev and st_ino of the directory that holds
     * the segments (/dev/shm, or LOCUS_SHM_DIR).  Two ranks with equal
     * values see the same directory; 0:0 if it cannot be stat'ed. */
    uint64_t shm_dev, shm_ino;
    /* IVSHMEM region this rank reaches (the random id its first user wrote
     * in its header, lc_ivshmem.h); 0 = none.  Set by the coordinator:
     * ranks on different kernels with equal ids are co-resident VMs. */
    uint64_t ivs_region;
} lc_identity_t;

/* Fill in this process's identity (cookie fields left to the caller).
 * numa_node is -1 unless the topology is loaded (lc_topo_load). */
void lc_identity_self(lc_identity_t *id);
/* Serialise for PMI (at most LC_IDENTITY_TEXT_MAX bytes with the NUL,
 * which fits a PMI value; no spaces) and parse it back.
 * Parse returns 0, or -1 for a malformed record. */
#define LC_IDENTITY_TEXT_MAX 512
void lc_identity_format(const lc_identity_t *id, char *buf, size_t len);
int lc_identity_parse(const char *text, lc_identity_t *id);
/* The shared-memory directory in use: LOCUS_SHM_DIR, else /dev/shm. */
const char *lc_identity_shm_dir(void);
/* Same kernel and same user: shared memory is worth trying. */
bool lc_identity_same_kernel(const lc_identity_t *a, const lc_identity_t *b);

/* Number of CPUs in the union of the affinity masks of `ids[0..n)`:
 * the cores a set of co-resident ranks may share. */
int lc_locality_union_cores(const lc_identity_t *ids, const int *which, int n);

#endif
