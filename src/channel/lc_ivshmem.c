/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_ivshmem.c — the ivshmem channel: the shm channel's rings (lc_shm.h,
 * unchanged protocol and per-peer state peer->shm) carved from slots of
 * an IVSHMEM region shared by virtual machines.  Each rank on the region
 * claims one slot holding the rings it reads, ring i written by the i-th
 * rank of the job on the region (ranks in our own VM and we ourselves
 * keep an unused ring: the index is then the same on both ends without
 * an extra exchange).  Peers find and trust the slot through its card
 * (slot, tag, key), published only in the job's PMI space.
 *
 * No single copy across VMs: rendezvous messages run through the
 * two-copy pipeline (can_pull stays false).
 */
#include "channel/lc_ivshmem.h"
#include "channel/lc_pkt_decode.h"
#include "channel/lc_shm.h"
#include "util/lc_params.h"
#include "util/lc_thread.h"
#include "util/lc_util.h"

#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LC_IVS_MAX_CELL (64u << 20)
#define LC_IVS_MAX_CELLS (1u << 20)

int lc_ivshmem_active;

static struct {
    lc_ivs_region_t region;   /* mapped at probe */
    int mapped;
    int slot;                 /* ours, -1 none */
    uint64_t own;             /* our slot's own word (the renewer's copy while it runs) */
    uint32_t cell_size, ncells, nrings;
    lc_peer_t *peers;
    int size;
    lc_peer_t **rx;           /* [size]: connected peers, polled */
    int nrx;
    uint64_t rx_mask;
    /* Renewal of our slot's lease. */
    pthread_t renewer;
    int renewing;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;
} lc_ivs = { .slot = -1, .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

const lc_ivs_region_t *lc_ivshmem_region(void)
{
    return lc_ivs.mapped ? &lc_ivs.region : NULL;
}

int lc_ivshmem_slot(uint32_t *cell_size, uint32_t *ncells)
{
    if (cell_size) *cell_size = lc_ivs.cell_size;
    if (ncells) *ncells = lc_ivs.ncells;
    return lc_ivs.slot;
}

uint64_t lc_ivshmem_probe(void)
{
    if (lc_ivs.mapped) return lc_ivs.region.id;
    int rc = lc_ivs_region_open(&lc_ivs.region);
    if (rc < 0) return (uint64_t)-1;
    if (rc == 0) return 0;
    lc_ivs.mapped = 1;
    return lc_ivs.region.id;
}

int lc_ivshmem_open(lc_peer_t *peers, int rank, int size, const char *kvsname, uint32_t nrings, char *card,
                    size_t cardlen)
{
    if (!lc_ivs.mapped) {
        lc_log_error("internal: ivshmem channel opened without a region");
        return LC_ERROR;
    }
    lc_ivs_region_t *r = &lc_ivs.region;
    lc_ivs.rx = calloc((size_t)size, sizeof(lc_peer_t *));
    if (!lc_ivs.rx) {
        lc_log_error("ivshmem: out of memory for %d peers", size);
        return LC_ERROR;
    }
    lc_ivs.peers = peers;
    lc_ivs.size = size;
    /* Geometry: rings of cells the size of the shm send pool's
     * (LOCUS_SHM_CELL_SIZE), so that every packet fits a ring cell: a
     * region has no send pools.  Fewer cells if the slot is too small
     * (down to 2). */
    uint32_t cell = lc_shm_pool_cell_size(), ncells = lc_shm_ring_cells();
    while (ncells > 2 && (uint64_t)nrings * cell * ncells > r->slot_bytes) ncells /= 2;
    if ((uint64_t)nrings * cell * ncells > r->slot_bytes) {
        lc_log_error("IVSHMEM region %s: a slot has %" PRIu64 " bytes, but %u rings of 2 cells of %u bytes need "
                     "%" PRIu64 "; give the region more memory or fewer slots (docs/vms.md: sizing), or lower "
                     "LOCUS_SHM_CELL_SIZE",
                     r->path, r->slot_bytes, nrings, cell, (uint64_t)nrings * cell * 2);
        return LC_ERROR;
    }
    char boot[40] = "unknown";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (fgets(boot, sizeof(boot), f)) boot[strcspn(boot, "\n")] = 0;
        fclose(f);
    }
    lc_ivs_owner_t me = {
        .job = lc_ivs_hash(kvsname), .kernel = lc_ivs_kernel_hash(boot), .pid = (uint32_t)getpid(),
        .rank = (uint32_t)rank,
    };
    int slot = lc_ivs_slot_claim(r, &me, lc_ivs_now(), &lc_ivs.own);
    if (slot < 0) return LC_ERROR;
    lc_ivs.slot = slot;
    lc_ivs.cell_size = cell;
    lc_ivs.ncells = ncells;
    lc_ivs.nrings = nrings;
    lc_ivs.rx_mask = ncells - 1;
    lc_ivs_slot_t *s = lc_ivs_slot(r, (uint32_t)slot);
    char *data = lc_ivs_slot_data(r, (uint32_t)slot);
    for (uint64_t i = 0; i < (uint64_t)nrings * ncells; i++)
        atomic_store_explicit(&((lc_shm_cell_t *)(data + i * cell))->seq, i % ncells, memory_order_relaxed);
    uint64_t key = 0;
    while (key == 0) lc_shm_random(&key, sizeof(key));
    s->key = key;
    s->cell_size = cell;
    s->ncells = ncells;
    s->nrings = nrings;
    /* Release: rings and geometry before a peer sees ready. */
    atomic_store_explicit(&s->ready, 1, memory_order_release);
    snprintf(card, cardlen, "%d-%08" PRIx64 "-%016" PRIx64, slot, lc_ivs.own & 0xffffffffu, key);
    return LC_OK;
}

int lc_ivshmem_connect(lc_peer_t *peer, const char *card, uint32_t tx_ring, uint32_t rx_ring, char *why,
                       size_t whylen)
{
    const lc_ivs_region_t *r = &lc_ivs.region;
    unsigned slot;
    uint64_t tag, key;
    int end = -1;
    if (!lc_ivs.mapped || lc_ivs.slot < 0) {
        snprintf(why, whylen, "internal: ivshmem channel not open");
        return LC_ERROR;
    }
    if (sscanf(card, "%u-%8" SCNx64 "-%16" SCNx64 "%n", &slot, &tag, &key, &end) != 3 || end != (int)strlen(card)) {
        snprintf(why, whylen, "its ivshmem card \"%.48s\" is malformed", card);
        return LC_ERROR;
    }
    if (slot >= r->nslots) {
        snprintf(why, whylen, "its slot %u is beyond the region's %u", slot, r->nslots);
        return LC_ERROR;
    }
    lc_ivs_slot_t *s = lc_ivs_slot(r, slot);
    uint64_t own = atomic_load_explicit(&s->own, memory_order_acquire);
    if ((own & 0xffffffffu) != tag || !atomic_load_explicit(&s->ready, memory_order_acquire) || s->key != key) {
        snprintf(why, whylen, "slot %u of region %s is not the one it published (taken over, or another job's)", slot,
                 r->path);
        return LC_ERROR;
    }
    /* One copy of the geometry, checked, then used. */
    uint32_t cell = s->cell_size, ncells = s->ncells, nrings = s->nrings;
    if (cell < 256 || cell % 64 || cell > LC_IVS_MAX_CELL || ncells < 2 || ncells > LC_IVS_MAX_CELLS ||
        (ncells & (ncells - 1)) || nrings < 1 || (uint64_t)cell * ncells * nrings > r->slot_bytes) {
        snprintf(why, whylen, "slot %u has an invalid geometry (%u rings of %u cells of %u bytes in %" PRIu64 ")",
                 slot, nrings, ncells, cell, r->slot_bytes);
        return LC_ERROR;
    }
    if (tx_ring >= nrings || rx_ring >= lc_ivs.nrings) {
        snprintf(why, whylen, "slot %u has %u rings, ring %u was expected there", slot, nrings, tx_ring);
        return LC_ERROR;
    }
    peer->kind = LC_CHANNEL_IVSHMEM;
    peer->ops = &lc_channel_ivshmem_ops;
    peer->shm.tx_cells = lc_ivs_slot_data(r, slot) + (size_t)tx_ring * cell * ncells;
    peer->shm.tx_pos = 0;
    peer->shm.tx_mask = ncells - 1;
    peer->shm.tx_cell_size = cell;
    peer->shm.tx_bell = 0; /* no futex across VMs: the peer's thread naps (lc_shm_bell.h) */
    peer->shm.rx_cells = lc_ivs_slot_data(r, (uint32_t)lc_ivs.slot) + (size_t)rx_ring * lc_ivs.cell_size * lc_ivs.ncells;
    peer->shm.rx_pos = 0;
    /* Packet limits as for a shm peer (lc_shm_connect): the peer's cells
     * bound a packet, ours a pipeline fragment too. */
    size_t payload = cell - LC_SHM_CELL_HDR;
    size_t own_payload = lc_ivs.cell_size - LC_SHM_CELL_HDR - sizeof(lc_pkt_data_t);
    peer->eager_limit = lc_params.eager_limit < payload ? lc_params.eager_limit : payload;
    peer->chunk = payload - sizeof(lc_pkt_data_t);
    if (own_payload < peer->chunk) peer->chunk = own_payload;
    if (lc_params.pipeline_chunk && lc_params.pipeline_chunk < peer->chunk) peer->chunk = lc_params.pipeline_chunk;
    peer->can_pull = false;
    peer->pull_min = 0;
    snprintf(peer->reason, sizeof(peer->reason), "other kernel, same IVSHMEM region %016" PRIx64 " (%.80s), slot %u",
             r->id, r->path, slot);
    return LC_OK;
}

/* Renew our slot every second (a lease of LOCUS_IVSHMEM_LEASE seconds). */
static void *lc_ivs_renew_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lc_ivs.lock);
    while (!lc_ivs.stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 1;
        pthread_cond_timedwait(&lc_ivs.wake, &lc_ivs.lock, &until);
        if (lc_ivs.stop) break;
        if (lc_ivs_slot_renew(&lc_ivs.region, (uint32_t)lc_ivs.slot, &lc_ivs.own, lc_ivs_now()) != 0) {
            lc_log_error("IVSHMEM region %s: our slot %d was claimed by another rank (this rank did not renew "
                         "it for %ld s: stopped, or clocks of the VMs apart?); messages through it are lost",
                         lc_ivs.region.path, lc_ivs.slot, lc_params.ivshmem_lease);
            break;
        }
    }
    pthread_mutex_unlock(&lc_ivs.lock);
    return NULL;
}

void lc_ivshmem_start(void)
{
    int n = 0;
    for (int r = 0; lc_ivs.peers && r < lc_ivs.size; r++)
        if (lc_ivs.peers[r].kind == LC_CHANNEL_IVSHMEM) lc_ivs.rx[n++] = &lc_ivs.peers[r];
    lc_ivs.nrx = n;
    lc_ivshmem_active = n > 0;
    lc_thread_nofast_set(LC_NOFAST_IVSHMEM, n > 0);
    if (lc_ivs.slot < 0 || lc_ivs.renewing) return;
    /* The renewer takes no signal: they stay with the application. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    lc_ivs.stop = 0;
    if (pthread_create(&lc_ivs.renewer, NULL, lc_ivs_renew_main, NULL) == 0) lc_ivs.renewing = 1;
    else lc_log_warn("IVSHMEM: cannot start the thread that renews our slot; it may be reclaimed after %ld s",
                     lc_params.ivshmem_lease);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void lc_ivshmem_close(void)
{
    lc_ivshmem_active = 0;
    lc_thread_nofast_set(LC_NOFAST_IVSHMEM, 0);
    lc_ivs.nrx = 0;
    if (lc_ivs.renewing) {
        pthread_mutex_lock(&lc_ivs.lock);
        lc_ivs.stop = 1;
        pthread_cond_signal(&lc_ivs.wake);
        pthread_mutex_unlock(&lc_ivs.lock);
        pthread_join(lc_ivs.renewer, NULL);
        lc_ivs.renewing = 0;
    }
    if (lc_ivs.mapped && lc_ivs.slot >= 0) lc_ivs_slot_release(&lc_ivs.region, (uint32_t)lc_ivs.slot, lc_ivs.own);
    lc_ivs.slot = -1;
    if (lc_ivs.mapped) lc_ivs_region_close(&lc_ivs.region);
    lc_ivs.mapped = 0;
    free(lc_ivs.rx);
    lc_ivs.rx = NULL;
    lc_ivs.peers = NULL;
    lc_ivs.size = 0;
}

/* As lc_shm_poll, over our slot's rings; a bounded batch per peer. */
#define LC_IVS_POLL_BATCH 8

int lc_ivshmem_poll(void)
{
    int handled = 0;
    uint64_t mask = lc_ivs.rx_mask, ncells = lc_ivs.ncells;
    uint32_t cell_size = lc_ivs.cell_size;
    const lc_shm_rx_ctx_t ctx = { .cell_size = cell_size };
    for (int i = 0; i < lc_ivs.nrx; i++) {
        lc_peer_t *peer = lc_ivs.rx[i];
        for (int n = 0; n < LC_IVS_POLL_BATCH; n++) {
            uint64_t pos = peer->shm.rx_pos;
            lc_shm_cell_t *cell = lc_shm_cell(peer->shm.rx_cells, pos, mask, cell_size);
            /* Acquire: pairs with the sender's release of seq. */
            if (atomic_load_explicit(&cell->seq, memory_order_acquire) != pos + 1) break;
            /* The cell came from another VM: decoded like a shm peer's
             * (one copy of the header, lengths against the cell; no pool). */
            lc_pkt_in_t in;
            char why[160];
            if (lc_shm_decode(cell, &ctx, &in, why, sizeof(why)) != NULL) lc_peer_fault(peer, "%s", why);
            lc_channel_recv_handler(peer, &in.hdr, in.payload);
            peer->shm.rx_pos = pos + 1;
            /* Release: the handler's reads are done before reuse. */
            atomic_store_explicit(&cell->seq, pos + ncells, memory_order_release);
            handled++;
        }
    }
    return handled;
}

static int lc_ivs_ops_try_send(lc_peer_t *peer, const lc_pkt_hdr_t *hdr, const void *pre, size_t prelen,
                               const void *data, size_t datalen)
{
    return lc_shm_try_send(peer, hdr, pre, prelen, data, datalen);
}

const lc_channel_ops_t lc_channel_ivshmem_ops = {
    .name = "ivshmem",
    .try_send = lc_ivs_ops_try_send,
    .pull = lc_channel_pull_unsupported,
};
