/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_liveness.h — a rank that waits for a dead peer, or whose launcher is
 * gone, ends the job instead of waiting forever (issue 12, point 6).
 *
 * Locus's own mpiexec ends a job within a second of a rank's death; a
 * foreign launcher (MPICH's hydra with -disable-auto-cleanup, Slurm's
 * srun without --kill-on-bad-exit, a hydra proxy that was killed) may
 * not.  So a rank watches, from the slow path of its waits only:
 *
 *   - a shared-memory peer, through the lock it holds on its segment
 *     while it lives (lc_shm_segment_owner_alive: one fcntl on the
 *     descriptor we keep anyway); the kernel drops the lock when the
 *     process dies, so this holds across PID namespaces (containers
 *     sharing /dev/shm or LOCUS_SHM_DIR, whose pids mean nothing here);
 *   - any other peer on this kernel in our PID namespace (the network
 *     channel between containers or with LOCUS_NET_FORCE), through a
 *     pidfd opened at the end of MPI_Init (the pid it published means the
 *     same process here: same boot id and PID-namespace inode; a pidfd
 *     cannot be fooled by pid reuse);
 *   - the launcher's PMI connection: closed by the other end means the
 *     launcher (or its proxy) died;
 *   - network peers on other hosts, through the provider's TCP
 *     connections: kernel keepalive on them, and silence for
 *     LOCUS_NET_TIMEOUT seconds means the peer's host is gone
 *     (lc_ofi_keepalive.c; a peer that merely computes still answers).
 *
 * A death is reported as "rank 2 (pid 1234 on host h) died; ending the
 * job", told to the launcher (lc_pmi_abort: it ends the others) and the
 * rank exits with code 1.  A failed network operation ends the job
 * through lc_fatal's hook (docs/security.md, point 6).
 *
 * Cost: lc_liveness_tick is an increment and a compare on a fruitless
 * progress pass; every LC_LIVENESS_PASSES of those it reads the clock,
 * and at most every LC_LIVENESS_PERIOD seconds it makes one poll(2) over
 * all pidfds, one fcntl per peer watched through a lock, and one poll
 * over the PMI socket.  Nothing on a pass that moved
 * a packet.
 */
#ifndef LC_LIVENESS_H
#define LC_LIVENESS_H

#include "locality/lc_locality.h"
#include "util/lc_util.h"

#define LC_LIVENESS_PASSES 1024u
#define LC_LIVENESS_PERIOD 0.1 /* seconds between two looks */

extern unsigned lc_liveness_idle; /* fruitless passes since the last look at the clock */

void lc_liveness_look(void);

/* A progress pass found nothing to do. */
static inline void lc_liveness_tick(void)
{
    if (lc_unlikely(++lc_liveness_idle >= LC_LIVENESS_PASSES)) lc_liveness_look();
}

/* At the end of MPI_Init: watch the peers among ids[0..size) that this
 * rank can (see above), and the PMI connection. */
void lc_liveness_start(const lc_identity_t *ids, int size, int rank);
/* At the start of MPI_Finalize (before its barrier, after which peers may
 * leave): stop watching.  A peer that left the barrier had every rank in
 * it, so no clean exit is ever taken for a death.  Idempotent. */
void lc_liveness_stop(void);

#endif
