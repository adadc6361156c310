/*
 * lc_coord.c — wire-up: identities, shared-memory segments, CMA probe,
 * and the per-peer channel table.
 *
 * Sequence (three PMI fences):
 *   1. publish identity; fence; read everyone's.
 *   2. peers with the same kernel and user are candidates; create our
 *      segment with one ring per candidate; fence.
 *   3. attach every candidate's segment (the proof that we share memory),
 *      probe CMA by reading the candidate's cookie; fence; unlink our
 *      segment name — from here on nothing of the job is left in
 *      /dev/shm, whatever happens (mpiexec also sweeps on abnormal ends).
 */
#include "coord/lc_coord.h"
#include "channel/lc_cma.h"
#include "channel/lc_shm.h"
#include "locality/lc_locality.h"
#include "pmi/lc_pmi.h"
#include "util/lc_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

lc_world_t lc_world;

static lc_shm_segment_t lc_my_segment;
static lc_shm_segment_t *lc_peer_segments; /* [size] */
static lc_peer_t **lc_rx_peers;

const char *lc_coord_channel_label(const lc_peer_t *peer)
{
    switch (peer->kind) {
    case LC_CHANNEL_SELF: return "self";
    case LC_CHANNEL_SHM: return peer->can_pull ? "shm+cma" : "shm";
    case LC_CHANNEL_NONE: return "none";
    }
    return "?";
}

static int lc_pow2_at_least(long v)
{
    int p = 1;
    while (p < v && p < (1 << 20)) p <<= 1;
    return p;
}

static int lc_exchange_identities(lc_identity_t *ids)
{
    lc_identity_t me;
    lc_identity_self(&me);
    lc_cma_allow_peers();
    me.cookie_addr = lc_cma_cookie_addr();
    me.cookie = lc_cma_cookie_value();
    snprintf(lc_world.hostname, sizeof(lc_world.hostname), "%s", me.host);

    char key[64], val[1024];
    snprintf(key, sizeof(key), "lc-id-%d", lc_world.rank);
    lc_identity_format(&me, val, sizeof(val));
    if (lc_pmi_put(key, val) != 0 || lc_pmi_fence() != 0) return -1;
    for (int r = 0; r < lc_world.size; r++) {
        if (r == lc_world.rank) {
            ids[r] = me;
            continue;
        }
        snprintf(key, sizeof(key), "lc-id-%d", r);
        if (lc_pmi_get(r, key, val, sizeof(val)) != 0 || lc_identity_parse(val, &ids[r]) != 0) {
            lc_log_error("wire-up: no valid identity record from rank %d", r);
            return -1;
        }
    }
    return 0;
}

static void lc_show_channels(void)
{
    /* Every rank publishes its row; rank 0 prints the matrix. */
    char key[64];
    char *row = malloc((size_t)lc_world.size * 8 + 1);
    if (!row) return;
    row[0] = 0;
    for (int r = 0; r < lc_world.size; r++) {
        strcat(row, lc_coord_channel_label(&lc_world.peers[r]));
        strcat(row, r + 1 < lc_world.size ? "," : "");
    }
    snprintf(key, sizeof(key), "lc-ch-%d", lc_world.rank);
    if (lc_pmi_put(key, row) != 0 || lc_pmi_fence() != 0 || lc_world.rank != 0) {
        free(row);
        return;
    }
    printf("Locus channels (row: from rank, column: to rank):\n");
    char val[1024];
    for (int r = 0; r < lc_world.size; r++) {
        snprintf(key, sizeof(key), "lc-ch-%d", r);
        if (r == 0) snprintf(val, sizeof(val), "%s", row);
        else if (lc_pmi_get(r, key, val, sizeof(val)) != 0) snprintf(val, sizeof(val), "?");
        printf("  rank %d:", r);
        for (char *tok = strtok(val, ","); tok; tok = strtok(NULL, ",")) printf(" %-8s", tok);
        printf("\n");
    }
    for (int r = 0; r < lc_world.size; r++)
        printf("  rank 0 -> rank %d: %s (%s)\n", r, lc_coord_channel_label(&lc_world.peers[r]),
               lc_world.peers[r].reason);
    fflush(stdout);
    free(row);
}

int lc_coord_wireup(void)
{
    int size = lc_world.size, me = lc_world.rank;
    lc_identity_t *ids = calloc((size_t)size, sizeof(*ids));
    int *local = malloc(sizeof(int) * (size_t)size);      /* local index -> world rank */
    int *local_idx = malloc(sizeof(int) * (size_t)size);  /* world rank -> local index or -1 */
    lc_world.peers = calloc((size_t)size, sizeof(lc_peer_t));
    lc_peer_segments = calloc((size_t)size, sizeof(lc_shm_segment_t));
    lc_rx_peers = calloc((size_t)size, sizeof(lc_peer_t *));
    if (!ids || !local || !local_idx || !lc_world.peers || !lc_peer_segments || !lc_rx_peers) {
        lc_log_error("wire-up: out of memory for %d peers", size);
        goto err;
    }
    for (int r = 0; r < size; r++) {
        lc_peer_t *p = &lc_world.peers[r];
        p->world_rank = r;
        p->kind = LC_CHANNEL_NONE;
        p->ops = &lc_channel_self_ops;
        snprintf(p->reason, sizeof(p->reason), "not on this host");
        lc_list_init(&p->pending);
    }
    lc_peer_t *self = &lc_world.peers[me];
    self->kind = LC_CHANNEL_SELF;
    self->can_pull = true;
    snprintf(self->reason, sizeof(self->reason), "same process");
    self->pid = getpid();

    size_t cell = lc_params.shm_cell_size < 256 ? 256 : (lc_params.shm_cell_size + 63) & ~(size_t)63;
    int ncells = lc_pow2_at_least(lc_params.shm_ring_cells < 2 ? 2 : lc_params.shm_ring_cells);
    lc_world.eager_limit = lc_params.eager_limit;
    if (lc_world.eager_limit > cell - LC_SHM_CELL_HDR) lc_world.eager_limit = cell - LC_SHM_CELL_HDR;
    lc_world.cma_threshold = lc_params.cma_threshold;
    lc_world.pipeline_chunk = cell - LC_SHM_CELL_HDR - sizeof(lc_pkt_data_t);
    if (lc_params.pipeline_chunk && lc_params.pipeline_chunk < lc_world.pipeline_chunk)
        lc_world.pipeline_chunk = lc_params.pipeline_chunk;
    lc_world.local_size = 1;

    if (size > 1) {
        if (lc_exchange_identities(ids) != 0) goto err;
        int nlocal = 0;
        for (int r = 0; r < size; r++) {
            local_idx[r] = -1;
            if (lc_identity_same_kernel(&ids[r], &ids[me])) {
                local_idx[r] = nlocal;
                local[nlocal++] = r;
            }
        }
        lc_world.local_size = nlocal;
        lc_world.usable_cores = lc_locality_union_cores(ids, local, nlocal);
        if (nlocal > 1 &&
            lc_shm_segment_create(&lc_my_segment, lc_world.kvsname, me, (uint32_t)nlocal, (uint32_t)cell,
                                  (uint32_t)ncells) != 0)
            goto err;
        if (lc_pmi_fence() != 0) goto err;

        int nrx = 0;
        for (int i = 0; i < nlocal; i++) {
            int r = local[i];
            if (r == me) continue;
            lc_peer_t *p = &lc_world.peers[r];
            p->pid = ids[r].pid;
            char why[160];
            if (lc_shm_segment_attach(&lc_peer_segments[r], lc_world.kvsname, r, why, sizeof(why)) != 0) {
                lc_log_error("rank %d (pid %d on %s) runs on this kernel but its shared memory is not "
                             "visible here: %s. Share /dev/shm (and the IPC namespace) between the "
                             "containers of this job.", r, (int)ids[r].pid, ids[r].host, why);
                goto err;
            }
            p->kind = LC_CHANNEL_SHM;
            p->ops = &lc_channel_shm_ops;
            p->tx_cells = lc_shm_segment_ring(&lc_peer_segments[r], (uint32_t)local_idx[me]);
            p->tx_cell_size = lc_peer_segments[r].cell_size;
            p->tx_mask = lc_peer_segments[r].ncells - 1;
            p->rx_cells = lc_shm_segment_ring(&lc_my_segment, (uint32_t)i);
            snprintf(p->reason, sizeof(p->reason), "same kernel; shared-memory segment attached");
            if (!lc_params.cma) {
                snprintf(p->reason, sizeof(p->reason), "%s",
                         "same kernel; shared-memory segment attached; CMA disabled by LOCUS_CMA=0");
            } else if (lc_cma_probe(ids[r].pid, ids[r].cookie_addr, ids[r].cookie, why, sizeof(why))) {
                p->can_pull = true;
                snprintf(p->reason, sizeof(p->reason), "same kernel; shared-memory segment attached; CMA probe read the cookie");
            } else {
                snprintf(p->reason, sizeof(p->reason), "same kernel; shared memory; no CMA: %.200s", why);
            }
            lc_rx_peers[nrx++] = p;
        }
        lc_shm_set_rx_peers(lc_rx_peers, nrx, (uint32_t)ncells, (uint32_t)cell);
        if (lc_pmi_fence() != 0) goto err;
        lc_shm_segment_unlink(&lc_my_segment);

        for (int r = 0; r < size; r++) {
            if (lc_world.peers[r].kind == LC_CHANNEL_NONE) {
                lc_log_error("rank %d runs on host %s (another kernel); this build of Locus has no "
                             "network channel yet: run all ranks on one host", r, ids[r].host);
                goto err;
            }
        }
    } else {
        lc_identity_t me_id;
        lc_identity_self(&me_id);
        snprintf(lc_world.hostname, sizeof(lc_world.hostname), "%s", me_id.host);
        lc_world.usable_cores = lc_locality_union_cores(&me_id, &(int){ 0 }, 1);
    }

    switch (lc_params.poll_mode) {
    case LC_POLL_SPIN: lc_world.yield_when_idle = 0; break;
    case LC_POLL_YIELD: lc_world.yield_when_idle = 1; break;
    default: lc_world.yield_when_idle = lc_world.local_size > lc_world.usable_cores; break;
    }
    if (lc_params.show_channels && size > 1) lc_show_channels();
    free(ids);
    free(local);
    free(local_idx);
    return 0;
err:
    lc_shm_segment_detach(&lc_my_segment);
    free(ids);
    free(local);
    free(local_idx);
    return -1;
}

void lc_coord_teardown(void)
{
    if (lc_peer_segments)
        for (int r = 0; r < lc_world.size; r++) lc_shm_segment_detach(&lc_peer_segments[r]);
    lc_shm_segment_detach(&lc_my_segment);
    lc_shm_set_rx_peers(NULL, 0, 2, 256);
    free(lc_peer_segments);
    free(lc_rx_peers);
    free(lc_world.peers);
    lc_peer_segments = NULL;
    lc_rx_peers = NULL;
    lc_world.peers = NULL;
}
