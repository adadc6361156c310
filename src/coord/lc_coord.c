/*
 * lc_coord.c — wire-up: identities, shared-memory segments, CMA probe,
 * and the per-peer channel table.
 *
 * Sequence (three PMI fences):
 *   1. publish identity; fence; read everyone's.
 *   2. peers with the same kernel and user are shared-memory candidates
 *      (unless LOCUS_NET_FORCE / LOCUS_NET_BLOCK send them to the network);
 *      create our segment with one ring per candidate.  If any other peer
 *      is left, or a candidate lives in other namespaces (its /dev/shm
 *      may not be ours: emulated hosts, containers), open the network
 *      endpoint (ofi), post its receives and publish its address; fence.
 *   3. insert the network peers' addresses; attach every candidate's
 *      segment (the proof that we share memory) and probe CMA by reading
 *      the candidate's cookie; for candidates in other namespaces publish
 *      whether the attach worked; fence; unlink our segment name — from
 *      here on nothing of the job is left in /dev/shm, whatever happens
 *      (mpiexec also sweeps on abnormal ends).  A pair in other
 *      namespaces uses shared memory only if both ends attached, else
 *      the network.
 *
 * NUMA (lc_topo.h): the topology is loaded before step 1, so that the
 * identity carries the rank's NUMA node; the segment of step 2 is placed
 * on our node (we are the receiver of its rings); a shm pair on two
 * distant nodes gets LOCUS_CMA_THRESHOLD_XNUMA as its pull threshold.
 * The topology is dropped when wire-up ends.
 */
#include "coord/lc_coord.h"
#include "channel/lc_cma.h"
#include "channel/lc_ofi.h"
#include "channel/lc_shm.h"
#include "locality/lc_locality.h"
#include "locality/lc_topo.h"
#include "pmi/lc_pmi.h"
#include "util/lc_params.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

lc_world_t lc_world;

static lc_shm_segment_t lc_my_segment;
static lc_shm_segment_t *lc_peer_segments; /* [size] */
static lc_peer_t **lc_rx_peers;
/* Where our segment's pages went (SHOW_CHANNELS), set at creation. */
static char lc_ring_placement[160];

const char *lc_coord_channel_label(const lc_peer_t *peer)
{
    switch (peer->kind) {
    case LC_CHANNEL_SELF: return "self";
    case LC_CHANNEL_SHM: return peer->can_pull ? "shm+cma" : "shm";
    case LC_CHANNEL_OFI: return peer->can_pull ? "ofi+rma" : "ofi";
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
    if (lc_topo_loaded())
        printf("  NUMA of rank 0: %d node(s)%s, distances %s, topology loaded in %.1f ms\n",
               lc_topo_numa_count(), lc_topo_is_this_system() ? "" : " (HWLOC_XMLFILE/HWLOC_SYNTHETIC)",
               lc_topo_distances_measured() ? "from the topology" : "assumed (10 same node, 20 other)",
               lc_topo_load_ms());
    if (lc_ring_placement[0]) printf("  rings of rank 0: %s\n", lc_ring_placement);
    fflush(stdout);
    free(row);
}

/* Shared memory is tried for peers on this kernel, unless the network is
 * forced for all (LOCUS_NET_FORCE) or for other blocks of ranks
 * (LOCUS_NET_BLOCK, which emulates hosts of N ranks on one machine). */
static bool lc_shm_candidate(const lc_identity_t *peer, const lc_identity_t *me, int r, int my_rank)
{
    if (r == my_rank) return true;
    if (!lc_identity_same_kernel(peer, me)) return false;
    if (lc_params.net_force) return false;
    if (lc_params.net_block > 0 && r / lc_params.net_block != my_rank / lc_params.net_block) return false;
    return true;
}

/* Same kernel, but in another mount, IPC or user namespace: whether its
 * /dev/shm is ours is not known until we try (emulated hosts, containers
 * with a private /dev/shm).  Symmetric, so both ends agree on trying. */
static bool lc_shm_uncertain(const lc_identity_t *peer, const lc_identity_t *me)
{
    return peer->ns_mnt != me->ns_mnt || peer->ns_ipc != me->ns_ipc || peer->ns_user != me->ns_user;
}

/* Reach rank r through the network endpoint at the address it published
 * (before the last fence); `cause` says why it is not shared memory. */
static int lc_connect_network_peer(int r, const lc_identity_t *ids, const char *cause)
{
    char key[64], val[1024], why[256];
    snprintf(key, sizeof(key), "lc-ofi-%d", r);
    if (lc_pmi_get(r, key, val, sizeof(val)) != 0) {
        lc_log_error("rank %d (host %s) published no network address, so this rank cannot reach it; "
                     "were the ranks started with different LOCUS_NET_FORCE / LOCUS_NET_BLOCK settings?",
                     r, ids[r].host);
        return -1;
    }
    lc_peer_t *p = &lc_world.peers[r];
    if (lc_ofi_connect(p, val, ids[r].host, why, sizeof(why)) != 0) {
        lc_log_error("cannot reach rank %d (host %s) through the network channel: %s", r, ids[r].host, why);
        return -1;
    }
    char via[sizeof(p->reason)];
    snprintf(via, sizeof(via), "%s", p->reason);
    snprintf(p->reason, sizeof(p->reason), "%.180s; %.70s", cause, via);
    return 0;
}

static void lc_network_cause(const lc_identity_t *ids, int r, char *cause, size_t len)
{
    if (!lc_identity_same_kernel(&ids[r], &ids[lc_world.rank]))
        snprintf(cause, len, "other host (%s)", ids[r].host);
    else
        snprintf(cause, len, "same kernel, network forced by %s",
                 lc_params.net_force ? "LOCUS_NET_FORCE" : "LOCUS_NET_BLOCK");
}

/* The shared-memory domains (directory dev:ino, lc_identity_t) of a
 * peer and ours, for the reason of a failed proof: equal domains point at
 * permissions or a vanished segment, different ones at a directory that
 * is not shared (private /dev/shm, LOCUS_SHM_DIR not bind-mounted). */
static void lc_shm_domains(const lc_identity_t *peer, const lc_identity_t *me, char *buf, size_t len)
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

/* The NUMA relation of a shm pair and the pull threshold it implies. */
static void lc_numa_relation(int mine, int theirs, const lc_peer_t *p, char *buf, size_t len)
{
    char cma[48] = "", size[24];
    if (p->can_pull) {
        lc_size_text(p->pull_min, size, sizeof(size));
        snprintf(cma, sizeof(cma), ", CMA from %s", size);
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

/* Placement hook of our segment: its rings are read by us, so their
 * pages go to our NUMA node (lc_topo_bind_area's result). */
typedef struct lc_ring_place {
    int node;
    int err; /* errno of a failed binding */
} lc_ring_place_t;

static int lc_place_rings(void *addr, size_t len, void *arg)
{
    lc_ring_place_t *where = arg;
    int rc = lc_topo_bind_area(addr, len, where->node);
    where->err = rc < 0 ? errno : 0;
    return rc;
}

static void lc_describe_placement(int node, int placed, int err)
{
    if (placed > 0)
        snprintf(lc_ring_placement, sizeof(lc_ring_placement), "segment bound to NUMA node %d", node);
    else if (placed < 0)
        snprintf(lc_ring_placement, sizeof(lc_ring_placement),
                 "binding to NUMA node %d failed (%s): pages allocated by this rank (first touch)", node,
                 strerror(err));
    else if (node >= 0)
        snprintf(lc_ring_placement, sizeof(lc_ring_placement),
                 "NUMA node %d (topology not of this system: not bound), pages allocated by this rank", node);
    else
        snprintf(lc_ring_placement, sizeof(lc_ring_placement),
                 "NUMA node unknown: pages allocated by this rank (first touch)");
}

int lc_coord_wireup(void)
{
    int size = lc_world.size, me = lc_world.rank;
    lc_identity_t *ids = calloc((size_t)size, sizeof(*ids));
    int *local = malloc(sizeof(int) * (size_t)size);      /* local index -> world rank */
    int *local_idx = malloc(sizeof(int) * (size_t)size);  /* world rank -> local index or -1 */
    char *uncertain = malloc((size_t)size);                /* shm candidate in other namespaces */
    /* Aligned as lc_peer_t asks: a shm send reads one cache line of it. */
    lc_world.peers = aligned_alloc(_Alignof(lc_peer_t), (size_t)size * sizeof(lc_peer_t));
    if (lc_world.peers) memset(lc_world.peers, 0, (size_t)size * sizeof(lc_peer_t));
    lc_peer_segments = calloc((size_t)size, sizeof(lc_shm_segment_t));
    lc_rx_peers = calloc((size_t)size, sizeof(lc_peer_t *));
    if (!ids || !local || !local_idx || !uncertain || !lc_world.peers || !lc_peer_segments || !lc_rx_peers) {
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

    size_t cell = lc_params.shm_cell_size < 256 ? 256 : (lc_params.shm_cell_size + 63) & ~(size_t)63;
    int ncells = lc_pow2_at_least(lc_params.shm_ring_cells < 2 ? 2 : lc_params.shm_ring_cells);
    lc_world.eager_limit = lc_params.eager_limit;
    if (lc_world.eager_limit > cell - LC_SHM_CELL_HDR) lc_world.eager_limit = cell - LC_SHM_CELL_HDR;
    lc_world.cma_threshold = lc_params.cma_threshold;
    lc_world.pipeline_chunk = cell - LC_SHM_CELL_HDR - sizeof(lc_pkt_data_t);
    if (lc_params.pipeline_chunk && lc_params.pipeline_chunk < lc_world.pipeline_chunk)
        lc_world.pipeline_chunk = lc_params.pipeline_chunk;
    lc_world.local_size = 1;

    lc_ring_placement[0] = 0;
    if (size > 1) {
        /* Before the identity: it carries our NUMA node.  A failed load
         * was reported; NUMA awareness is then off (node unknown). */
        if (lc_params.numa) lc_topo_load();
        if (lc_exchange_identities(ids) != 0) goto err;
        /* Ranks on this kernel share its cores (waiting policy) whatever
         * channel reaches them. */
        int nkernel = 0;
        for (int r = 0; r < size; r++)
            if (lc_identity_same_kernel(&ids[r], &ids[me])) local[nkernel++] = r;
        lc_world.local_size = nkernel;
        lc_world.usable_cores = lc_locality_union_cores(ids, local, nkernel);
        /* Shared-memory candidates.  The choice is symmetric (same inputs
         * on both sides), so both ends of a pair pick the same channel.
         * Uncertain candidates (other namespaces) may still end up on the
         * network: their endpoint addresses are published too. */
        int nlocal = 0, nnet = 0, nuncertain = 0;
        for (int r = 0; r < size; r++) {
            local_idx[r] = -1;
            uncertain[r] = 0;
            if (lc_shm_candidate(&ids[r], &ids[me], r, me)) {
                local_idx[r] = nlocal;
                local[nlocal++] = r;
                if (r != me && lc_shm_uncertain(&ids[r], &ids[me])) {
                    uncertain[r] = 1;
                    nuncertain++;
                }
            } else {
                nnet++;
            }
        }
        if (nlocal > 1) {
            lc_ring_place_t where = { .node = ids[me].numa_node, .err = 0 };
            int placed = 0;
            if (lc_shm_segment_create_placed(&lc_my_segment, lc_world.kvsname, me, (uint32_t)nlocal,
                                             (uint32_t)cell, (uint32_t)ncells, lc_place_rings, &where,
                                             &placed) != 0)
                goto err;
            lc_describe_placement(where.node, placed, where.err);
        }
        if (nnet + nuncertain > 0) {
            char key[64], addr[LC_OFI_ADDR_TEXT_MAX];
            if (lc_ofi_open(lc_world.peers, me, size, nnet + nuncertain, addr, sizeof(addr)) != 0) {
                lc_log_error("rank %d cannot open its network endpoint, which it needs to reach %d rank(s) "
                             "%s", me, nnet + nuncertain,
                             lc_params.net_force ? "(LOCUS_NET_FORCE=1)" : "on other hosts or in other containers");
                goto err;
            }
            snprintf(key, sizeof(key), "lc-ofi-%d", me);
            if (lc_pmi_put(key, addr) != 0) goto err;
        }
        if (lc_pmi_fence() != 0) goto err;

        for (int r = 0; r < size; r++) {
            if (local_idx[r] >= 0) continue;
            char cause[96];
            lc_network_cause(ids, r, cause, sizeof(cause));
            if (lc_connect_network_peer(r, ids, cause) != 0) goto err;
        }

        for (int i = 0; i < nlocal; i++) {
            int r = local[i];
            if (r == me) continue;
            lc_peer_t *p = &lc_world.peers[r];
            p->cma.pid = ids[r].pid;
            char why[160];
            if (lc_shm_segment_attach(&lc_peer_segments[r], lc_world.kvsname, r, why, sizeof(why)) != 0) {
                char domains[96];
                lc_shm_domains(&ids[r], &ids[me], domains, sizeof(domains));
                if (uncertain[r]) {
                    /* Another /dev/shm: the network it is, if the peer agrees. */
                    snprintf(p->reason, sizeof(p->reason), "same kernel, %.70s: %.110s", domains, why);
                    continue;
                }
                lc_log_error("rank %d (pid %d on %s) runs on this kernel but its shared memory is not "
                             "visible here (%s): %s. Share /dev/shm (and the IPC namespace) between the "
                             "containers of this job.", r, (int)ids[r].pid, ids[r].host, domains, why);
                goto err;
            }
            p->kind = LC_CHANNEL_SHM;
            p->ops = &lc_channel_shm_ops;
            p->pull_min = lc_world.cma_threshold;
            p->shm.tx_cells = lc_shm_segment_ring(&lc_peer_segments[r], (uint32_t)local_idx[me]);
            p->shm.tx_cell_size = lc_peer_segments[r].cell_size;
            p->shm.tx_mask = lc_peer_segments[r].ncells - 1;
            /* The peer's cells bound one packet (its LOCUS_SHM_CELL_SIZE
             * may differ from ours). */
            size_t payload = p->shm.tx_cell_size - LC_SHM_CELL_HDR;
            p->eager_limit = lc_params.eager_limit < payload ? lc_params.eager_limit : payload;
            p->chunk = payload - sizeof(lc_pkt_data_t);
            if (lc_world.pipeline_chunk < p->chunk) p->chunk = lc_world.pipeline_chunk;
            p->shm.rx_cells = lc_shm_segment_ring(&lc_my_segment, (uint32_t)i);
            char base[180], numa[96];
            if (!lc_params.cma) {
                snprintf(base, sizeof(base), "%s",
                         "same kernel; shared-memory segment attached; CMA disabled by LOCUS_CMA=0");
            } else if (lc_cma_probe(ids[r].pid, ids[r].cookie_addr, ids[r].cookie, why, sizeof(why))) {
                p->can_pull = true;
                snprintf(base, sizeof(base), "same kernel; shared-memory segment attached; CMA probe read the cookie");
            } else {
                snprintf(base, sizeof(base), "same kernel; shared memory; no CMA: %.130s", why);
            }
            /* Across NUMA nodes the pipeline moves the data over the
             * interconnect twice, CMA once: pull sooner. */
            if (lc_topo_far(ids[me].numa_node, ids[r].numa_node)) p->pull_min = lc_params.cma_threshold_xnuma;
            lc_numa_relation(ids[me].numa_node, ids[r].numa_node, p, numa, sizeof(numa));
            snprintf(p->reason, sizeof(p->reason), "%.170s; %.80s", base, numa);
        }
        /* Uncertain pairs use shared memory only if both ends attached. */
        for (int r = 0; r < size; r++) {
            if (!uncertain[r]) continue;
            char key[64];
            snprintf(key, sizeof(key), "lc-shm-%d-%d", me, r);
            if (lc_pmi_put(key, lc_world.peers[r].kind == LC_CHANNEL_SHM ? "1" : "0") != 0) goto err;
        }
        if (lc_pmi_fence() != 0) goto err;
        lc_shm_segment_unlink(&lc_my_segment);
        for (int r = 0; r < size; r++) {
            if (!uncertain[r]) continue;
            lc_peer_t *p = &lc_world.peers[r];
            char key[64], theirs[16];
            snprintf(key, sizeof(key), "lc-shm-%d-%d", r, me);
            if (lc_pmi_get(r, key, theirs, sizeof(theirs)) != 0) goto err;
            if (p->kind == LC_CHANNEL_SHM && theirs[0] == '1') continue;
            char cause[200], domains[96];
            lc_shm_domains(&ids[r], &ids[me], domains, sizeof(domains));
            if (p->kind == LC_CHANNEL_SHM)
                snprintf(cause, sizeof(cause), "same kernel, but it cannot see our segment (%.90s)", domains);
            else
                snprintf(cause, sizeof(cause), "%.190s", p->reason);
            p->kind = LC_CHANNEL_NONE;
            p->can_pull = false;
            p->shm.tx_cells = p->shm.rx_cells = NULL;
            lc_shm_segment_detach(&lc_peer_segments[r]);
            if (lc_connect_network_peer(r, ids, cause) != 0) goto err;
        }
        /* Containers that proved shared memory after all need no network:
         * close the endpoint so that progress does not poll it. */
        int nofi = 0;
        for (int r = 0; r < size; r++) nofi += lc_world.peers[r].kind == LC_CHANNEL_OFI;
        if (!nofi) lc_ofi_close();
        int nrx = 0;
        for (int r = 0; r < size; r++)
            if (lc_world.peers[r].kind == LC_CHANNEL_SHM) lc_rx_peers[nrx++] = &lc_world.peers[r];
        /* No peer sends before its MPI_Init returns, after the fence. */
        lc_shm_set_rx_peers(lc_rx_peers, nrx, (uint32_t)ncells, (uint32_t)cell);

        for (int r = 0; r < size; r++) {
            if (lc_world.peers[r].kind == LC_CHANNEL_NONE) {
                lc_log_error("internal: no channel reaches rank %d on host %s", r, ids[r].host);
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
    lc_ofi_set_idle_yield(lc_world.yield_when_idle);
    if (lc_params.show_channels && size > 1) lc_show_channels();
    lc_topo_unload();
    free(ids);
    free(local);
    free(local_idx);
    free(uncertain);
    return 0;
err:
    lc_shm_segment_detach(&lc_my_segment);
    lc_ofi_close();
    lc_topo_unload();
    free(ids);
    free(local);
    free(local_idx);
    free(uncertain);
    return -1;
}

void lc_coord_teardown(void)
{
    /* First: the goodbye exchange still delivers packets to the peers. */
    lc_ofi_close();
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
