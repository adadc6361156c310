/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_cma.h — single-copy transfers with Cross Memory Attach
 * (process_vm_readv).  Works only when the peer's PID is visible in our
 * PID namespace and ptrace access is allowed; the start-up probe proves
 * both by reading a cookie out of the peer before CMA is ever relied on.
 */
#ifndef LC_CMA_H
#define LC_CMA_H

#include "channel/lc_channel.h"

/* Draw the cookie (before the identity exchange publishes it). */
void lc_cma_cookie_init(void);
/* Allow any process to ptrace-read us (PR_SET_PTRACER_ANY: Yama's
 * ptrace_scope=1 otherwise forbids non-descendants, and so CMA between
 * ranks).  It opens us to every process of our uid, not only our peers
 * (issue 12, point 5): wire-up calls it only when CMA is enabled and some
 * peer may share memory with us, before the fence that precedes the
 * probes; lc_cma_forbid_peers takes it back (PR_SET_PTRACER 0) when no
 * peer ended up using CMA, and at finalize.  Without Yama the prctl
 * fails (EINVAL) and nothing is to be allowed or taken back. */
void lc_cma_allow_peers(void);
void lc_cma_forbid_peers(void);

/* The cookie peers read; its address and value are published in the
 * identity record. */
uint64_t lc_cma_cookie_value(void);
uint64_t lc_cma_cookie_addr(void);

/* Can we read process `pid`?  True if `cookie` is at `addr` there; false
 * with the reason in `why`. */
bool lc_cma_probe(pid_t pid, uint64_t addr, uint64_t cookie, char *why, size_t whylen);

/* Let the shared-memory peer `peer` (process `pid`) be pulled from with
 * CMA if the probe reads its cookie: sets peer->cma, can_pull, and
 * pull_min (rendezvous messages at least this large are pulled; the
 * caller's policy).  Returns LC_OK, or LC_ERROR with the reason in `why` (the peer
 * then stays without single copy: the two-copy pipeline works anyway). */
int lc_cma_connect(lc_peer_t *peer, pid_t pid, uint64_t cookie_addr, uint64_t cookie, size_t pull_min, char *why,
                   size_t whylen);

/* The ops-table pull: process_vm_readv loop until len bytes arrived. */
int lc_cma_pull(lc_peer_t *peer, void *local, uint64_t remote, uint64_t key, size_t len);
/* The other direction (one-sided puts into Win_create memory): a
 * process_vm_writev loop.  The probe's read proves the permission: the
 * kernel checks reads and writes alike (PTRACE_MODE_ATTACH). */
int lc_cma_push(lc_peer_t *peer, uint64_t remote, const void *local, size_t len);
/* The ops-table pullv: one process_vm_readv into many local segments
 * (a derived datatype's layout), looping over partial reads. */
#define LC_CMA_IOV_MAX LC_CHANNEL_IOV_MAX
int lc_cma_pullv(lc_peer_t *peer, const struct iovec *local, int niov, uint64_t remote, uint64_t key, size_t len);
/* The ops-table pull_list: scattered on both sides (the remote segments
 * are a derived-datatype send's blocks, as its sender listed them);
 * process_vm_readv loop trimming both arrays on partial reads. */
int lc_cma_pull_list(lc_peer_t *peer, const struct iovec *local, int nlocal, const struct iovec *remote, int nremote,
                     size_t len);

#endif
