/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_shm_bell.c — the progress thread's doorbell (lc_shm_bell.h). */
#include "channel/lc_shm_bell.h"
#include "channel/lc_shm.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static lc_shm_bell_t lc_shm_bell_local;

void lc_shm_bell_after_send(lc_peer_t *peer)
{
    lc_shm_bell_t *b = peer->shm.tx_bell_word;
    /* The packet's seq store before the load of wanted (see the header). */
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&b->wanted, memory_order_relaxed)) return;
    /* One ring per request: a burst of packets costs one system call. */
    if (!atomic_exchange_explicit(&b->wanted, 0, memory_order_relaxed)) return;
    lc_shm_bell_ring(b);
}

void lc_shm_bell_bump(lc_shm_bell_t *b)
{
    atomic_fetch_add_explicit(&b->bell, 1, memory_order_seq_cst);
}

void lc_shm_bell_wake(lc_shm_bell_t *b)
{
    (void)syscall(SYS_futex, &b->bell, FUTEX_WAKE, 1, NULL, NULL, 0);
}

void lc_shm_bell_ring(lc_shm_bell_t *b)
{
    lc_shm_bell_bump(b);
    lc_shm_bell_wake(b);
}

int lc_shm_bell_wait(lc_shm_bell_t *b, uint32_t v, const struct timespec *deadline)
{
    /* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline. */
    long rc = syscall(SYS_futex, &b->bell, FUTEX_WAIT_BITSET, v, deadline, NULL, FUTEX_BITSET_MATCH_ANY);
    return rc != 0 && errno == ETIMEDOUT ? -1 : 0;
}

lc_shm_bell_t *lc_shm_bell_own(void)
{
    char *base = lc_shm_own_base();
    return base ? (lc_shm_bell_t *)(base + LC_SHM_BELL_OFFSET) : &lc_shm_bell_local;
}
