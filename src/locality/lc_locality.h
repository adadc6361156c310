/*
 * lc_locality.h — who a process is, as far as co-residence goes.
 *
 * Each rank publishes an identity record; two ranks with the same kernel
 * boot id and user *may* share memory, which the coordinator then proves
 * by opening each other's segment and reading a CMA cookie.  Namespace
 * inodes are recorded for the diagnostics (and for the container-aware
 * detector to come).
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
} lc_identity_t;

/* Fill in this process's identity (cookie fields left to the caller). */
void lc_identity_self(lc_identity_t *id);
/* Serialise for PMI (fits a 1024-byte value) and parse it back.
 * Parse returns 0, or -1 for a malformed record. */
void lc_identity_format(const lc_identity_t *id, char *buf, size_t len);
int lc_identity_parse(const char *text, lc_identity_t *id);
/* Same kernel and same user: shared memory is worth trying. */
bool lc_identity_same_kernel(const lc_identity_t *a, const lc_identity_t *b);

/* Number of CPUs in the union of the affinity masks of `ids[0..n)`:
 * the cores a set of co-resident ranks may share. */
int lc_locality_union_cores(const lc_identity_t *ids, const int *which, int n);

#endif
