/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_shm_bell.h — a doorbell in each rank's shared-memory segment: the
 * asynchronous progress thread (src/pt2pt/lc_async.c) sleeps on it, and a
 * peer that puts a packet in one of this rank's rings rings it when the
 * thread asked for that (docs/architecture.md "Asynchronous progress").
 *
 * Two 32-bit words in the segment's header page, on a cache line of their
 * own (the header proper is read-only after creation):
 *   wanted  1: the next packet from a peer should ring `bell`.  Set by the
 *           owner (its thread before it sleeps waiting for data, or an
 *           application call that leaves work pending), cleared by the
 *           owner's calls on entry (the application polls itself) and by
 *           the sender that rings (one ring per request);
 *   bell    a futex word, incremented by every ring (local or remote); the
 *           thread sleeps on it with FUTEX_WAIT (not private: peers ring
 *           it through their mapping of the segment).
 * Ordering (no lost ring): the sleeper stores wanted = 1 (seq_cst), reads
 * bell, polls its rings once more and sleeps on the value read; a sender
 * publishes its packet (release store of the cell's seq), then a seq_cst
 * fence, then loads wanted.  Either the sleeper's last poll sees the
 * packet or the sender sees wanted = 1 and changes bell before or while
 * the sleeper waits.  Cases that are not so ordered (an application call
 * that sets wanted without polling afterwards) only fall back on the
 * thread's timed naps.
 */
#ifndef LC_SHM_BELL_H
#define LC_SHM_BELL_H

#include "channel/lc_channel.h"

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

/* Where the bell sits in a segment (header page, second cache line). */
#define LC_SHM_BELL_OFFSET 64

typedef struct lc_shm_bell {
    _Atomic uint32_t wanted;
    _Atomic uint32_t bell;
    /* 1 while the owner's auto-mode waits may sleep (foreign load,
     * lc_starve.c): peers whose tx_bell is LC_SHM_BELL_IF_PRESSED look at
     * wanted only then.  Read relaxed, without the fence: a sender that
     * has not seen it turn 1 yet misses a ring, which the sleep's 1 ms
     * limit bounds — once per turn, against a fence per packet always. */
    _Atomic uint32_t pressed;
} lc_shm_bell_t;

/* peer->shm.tx_bell: ring after every packet when the peer wants it
 * (its progress thread, LOCUS_POLL=sleep), or only while it says it is
 * pressed (LOCUS_POLL=auto). */
#define LC_SHM_BELL_ALWAYS 1u
#define LC_SHM_BELL_IF_PRESSED 2u

/* This process's bell: in its own segment when it has one (peers can ring
 * it), else a process-local word (only its application threads ring). */
lc_shm_bell_t *lc_shm_bell_own(void);

/* Sender side, after a packet went into `peer`'s ring (peer->shm.tx_bell
 * set: this process runs with LOCUS_ASYNC_PROGRESS, so its peers do too
 * unless started otherwise). */
void lc_shm_bell_after_send(lc_peer_t *peer);

/* At each send site, after the packet's release store: the quiet auto
 * mode's cost is two loads and two branches, no fence. */
static inline void lc_shm_bell_check(lc_peer_t *peer)
{
    uint32_t mode = peer->shm.tx_bell;
    if (lc_unlikely(mode != 0) &&
        (mode == LC_SHM_BELL_ALWAYS ||
         atomic_load_explicit(&peer->shm.tx_bell_word->pressed, memory_order_relaxed)))
        lc_shm_bell_after_send(peer);
}

/* Look at each shared-memory peer's doorbell after every packet put in
 * its rings (`mode` LC_SHM_BELL_ALWAYS), or only while the peer says its
 * waits are pressed (LC_SHM_BELL_IF_PRESSED, LOCUS_POLL=auto; peers
 * already rung always stay so): called when this rank's waits may sleep
 * (lc_progress_idle), and the peers' may too — the same wait policy, from
 * the job's environment and this kernel's rank and core counts. */
void lc_shm_bell_ring_peers(uint32_t mode);

/* Ring `b` (local or remote): bell++, wake one sleeper. */
void lc_shm_bell_ring(lc_shm_bell_t *b);

/* The two halves of a ring, for a caller that must not make the system
 * call where it decides to ring (an application thread holding the
 * critical section: the woken thread would preempt it and then wait for
 * the section).  bump: bell++ (a sleeper that has not yet gone to sleep
 * on the old value will not); wake: wake one sleeper, any time after
 * the bump (a sleeper that went to sleep before the bump is woken by it;
 * one that read the bumped value does not sleep). */
void lc_shm_bell_bump(lc_shm_bell_t *b);
void lc_shm_bell_wake(lc_shm_bell_t *b);

/* Sleep while b->bell == v, until `deadline` (CLOCK_MONOTONIC; NULL: no
 * limit).  Returns 0 when woken or the value moved, -1 on timeout. */
int lc_shm_bell_wait(lc_shm_bell_t *b, uint32_t v, const struct timespec *deadline);

#endif
