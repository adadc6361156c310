/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coord_show.c — what wire-up tells the user: the reason text of each
 * peer's channel and, with LOCUS_SHOW_CHANNELS=1, the peers x channel
 * matrix printed by rank 0.
 */
#include "coord/lc_coord_impl.h"
#include "locality/lc_topo.h"
#include "pmi/lc_pmi.h"
#include "util/lc_params.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *lc_coord_channel_label(const lc_peer_t *peer)
{
    switch (peer->kind) {
    case LC_CHANNEL_SELF: return "self";
    case LC_CHANNEL_SHM: return peer->can_pull ? "shm+cma" : "shm";
    case LC_CHANNEL_OFI: return peer->can_pull ? "ofi+rma" : "ofi";
    case LC_CHANNEL_NONE: return "none";
    case LC_CHANNEL_IVSHMEM: return "ivshmem";
    }
    return "?";
}

void lc_coord_reason_network(const lc_identity_t *ids, int me, int r, char *buf, size_t len)
{
    if (!lc_identity_same_kernel(&ids[r], &ids[me]))
        snprintf(buf, len, "other host (%s)", ids[r].host);
    else
        snprintf(buf, len, "same kernel, network forced by %s",
                 lc_params.net_force ? "LOCUS_NET_FORCE" : "LOCUS_NET_BLOCK");
}

void lc_coord_reason_domains(const lc_identity_t *peer, const lc_identity_t *me, char *buf, size_t len)
{
    if (peer->shm_dev == me->shm_dev && peer->shm_ino == me->shm_ino)
        snprintf(buf, len, "same shm domain %" PRIx64 ":%" PRIx64, me->shm_dev, me->shm_ino);
    else
        snprintf(buf, len, "other shm domain (%" PRIx64 ":%" PRIx64 ", ours %" PRIx64 ":%" PRIx64 ")",
                 peer->shm_dev, peer->shm_ino, me->shm_dev, me->shm_ino);
}

/* "64 KiB", "256 MiB", or "1000 B". */
static void lc_size_text(size_t v, char *buf, size_t len)
{
    if (v && v % (1u << 30) == 0) snprintf(buf, len, "%zu GiB", v >> 30);
    else if (v && v % (1u << 20) == 0) snprintf(buf, len, "%zu MiB", v >> 20);
    else if (v && v % (1u << 10) == 0) snprintf(buf, len, "%zu KiB", v >> 10);
    else snprintf(buf, len, "%zu B", v);
}

void lc_coord_reason_numa(int mine, int theirs, const lc_peer_t *p, char *buf, size_t len)
{
    char cma[160] = "", size[24], split[24];
    if (p->can_pull) {
        lc_size_text(p->pull_min, size, sizeof(size));
        /* auto (lc_pt2pt_pick.c): from there the receiver measures */
        int n = snprintf(cma, sizeof(cma), p->pick.calibrate ? ", CMA or pipeline measured from %s" : ", CMA from %s",
                         size);
        /* The split copy (lc_pt2pt_split.c): which pulls the sender helps with. */
        if (lc_params.cma_split == LC_PARAM_SIZE_AUTO) {
            /* auto: the pick measures it (lc_pt2pt_pick_split.c), only where it measures CMA */
            if (p->pick.calibrate && p->kind == LC_CHANNEL_SHM && p->shm.tx_split && n > 0 && (size_t)n < sizeof(cma)) {
                lc_size_text(lc_params.cma_split_chunk, split, sizeof(split));
                snprintf(cma + n, sizeof(cma) - (size_t)n, ", split copy measured above %s", split);
            }
        } else if (lc_params.cma_split && p->kind == LC_CHANNEL_SHM && p->shm.tx_split && n > 0 &&
                   (size_t)n < sizeof(cma)) {
            /* Split: at least CMA_SPLIT and more than one chunk (the sender
             * pushes chunks from the back while we pull from the front). */
            bool above = lc_params.cma_split <= lc_params.cma_split_chunk;
            lc_size_text(above ? lc_params.cma_split_chunk : lc_params.cma_split, split, sizeof(split));
            snprintf(cma + n, sizeof(cma) - (size_t)n, ", split copy %s %s", above ? "above" : "from", split);
        }
    }
    if (!lc_params.numa) {
        snprintf(buf, len, "NUMA not read (LOCUS_NUMA=0)%s", cma);
    } else if (mine < 0 || theirs < 0) {
        snprintf(buf, len, "NUMA node unknown%s", cma);
    } else if (mine == theirs) {
        snprintf(buf, len, "same NUMA node %d%s", mine, cma);
    } else {
        int d = lc_topo_distance(mine, theirs);
        char dist[24] = "unknown";
        if (d >= 0) snprintf(dist, sizeof(dist), "%d", d);
        snprintf(buf, len, "NUMA nodes %d,%d (distance %s)%s", mine, theirs, dist, cma);
    }
}

static void lc_print_matrix(const char *row0)
{
    char key[64], val[1024];
    printf("Locus channels (row: from rank, column: to rank):\n");
    for (int r = 0; r < lc_world.size; r++) {
        snprintf(key, sizeof(key), "lc-ch-%d", r);
        if (r == 0) snprintf(val, sizeof(val), "%s", row0);
        else if (lc_pmi_get(r, key, val, sizeof(val)) != 0) snprintf(val, sizeof(val), "?");
        printf("  rank %d:", r);
        for (char *tok = strtok(val, ","); tok; tok = strtok(NULL, ",")) printf(" %-8s", tok);
        printf("\n");
    }
}

void lc_coord_show_channels(const char *ring_placement)
{
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
    lc_print_matrix(row);
    for (int r = 0; r < lc_world.size; r++)
        printf("  rank 0 -> rank %d: %s (%s)\n", r, lc_coord_channel_label(&lc_world.peers[r]),
               lc_world.peers[r].reason);
    if (lc_topo_loaded())
        printf("  NUMA of rank 0: %d node(s)%s, distances %s, topology loaded in %.1f ms\n",
               lc_topo_numa_count(), lc_topo_is_this_system() ? "" : " (HWLOC_XMLFILE/HWLOC_SYNTHETIC)",
               lc_topo_distances_measured() ? "from the topology" : "assumed (10 same node, 20 other)",
               lc_topo_load_ms());
    if (ring_placement[0]) printf("  rings of rank 0: %s\n", ring_placement);
    fflush(stdout);
    free(row);
}
