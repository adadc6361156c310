/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_coord.c — wire-up: decide which channel reaches each peer and let
 * that channel connect it.  Five phases, one function each, three PMI
 * fences:
 *
 *   classify  publish our identity; fence 1; read everyone's.  Give each
 *             peer a plan (lc_plan_t): self, shared memory (certain; or
 *             uncertain: other namespaces), or the network.  The inputs
 *             are the same on both ends of a pair, so both make the same
 *             plan.
 *   open      every channel some plan needs opens its own end: our shm
 *             segment (one ring per shm candidate, pages on our NUMA
 *             node), the ofi endpoint (receives posted, address
 *             published); fence 2.
 *   connect   each peer through its planned channel's connect function —
 *             lc_shm_connect (maps the peer's segment: the proof that we
 *             share memory) and then lc_cma_connect (the single-copy
 *             probe), or lc_ofi_connect (the peer's published address).
 *             A connect function sets kind, ops, the packet limits and
 *             its own per-peer struct; this file never writes a channel's
 *             fields.
 *   agree     an uncertain pair uses shared memory only if both ends
 *             mapped: each publishes its results in one record
 *             (lc_coord_agree.c); fence 3; our segment's
 *             name is unlinked (from here on nothing of the job is left
 *             in /dev/shm, whatever happens; mpiexec also sweeps on
 *             abnormal ends); a pair where either end failed is
 *             disconnected and reached through the network.
 *   finish    close what no peer uses, start polling the connected rings,
 *             check that every peer is reached.
 *
 * Where a new channel plugs in (IVSHMEM, as a segment provider of the
 * shm channel, or a channel of its own): a plan and the test that picks
 * it (lc_plan_of); its open in lc_wireup_open; its connect in
 * lc_wireup_connect's switch; an agreement step if, like a segment
 * attach, one end's success does not prove the other's; its start in
 * lc_wireup_finish and its close in lc_coord_teardown (and the error path
 * of lc_coord_wireup).
 *
 * NUMA (lc_topo.h): the topology is loaded before the identities, which
 * carry the rank's NUMA node; our segment is placed on our node (we read
 * its rings); a shm pair on two distant nodes pulls from
 * LOCUS_CMA_THRESHOLD_XNUMA.  The topology is dropped when wire-up ends.
 */
#include "coord/lc_coord_impl.h"
#include "coord/lc_liveness.h"
#include "coord/lc_universe.h"
#include "channel/lc_cma.h"
#include "channel/lc_ivshmem.h"
#include "channel/lc_ofi.h"
#include "channel/lc_shm.h"
#include "channel/lc_shm_bell.h"
#include "locality/lc_topo.h"
#include "pmi/lc_pmi.h"
#include "util/lc_init_times.h"
#include "util/lc_params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where our segment's pages went (SHOW_CHANNELS), set at creation. */
static char lc_ring_placement[160];

/* What wire-up tries for a peer. */
typedef enum lc_plan {
    LC_PLAN_SELF = 0,
    LC_PLAN_SHM,     /* same kernel, user and namespaces: the segment must map */
    LC_PLAN_SHM_TRY, /* same kernel and user, other mount/IPC/user namespace (containers, emulated
                      * hosts): shared memory if both ends map, else the network */
    LC_PLAN_NET,     /* another kernel, or the network forced (LOCUS_NET_FORCE, LOCUS_NET_BLOCK) */
    LC_PLAN_IVSHMEM, /* another kernel (a VM) that reaches our IVSHMEM region: its rings (lc_ivshmem.h) */
} lc_plan_t;

/* A card of either kind (a peer is a shm candidate or an IVSHMEM peer,
 * never both). */
#define LC_COORD_CARD_LEN (LC_SHM_CARD_LEN > LC_IVS_CARD_LEN ? LC_SHM_CARD_LEN : LC_IVS_CARD_LEN)

/* What wire-up knows while it runs. */
typedef struct lc_wireup {
    int rank, size;
    lc_identity_t *ids; /* [size]: everyone's identity */
    lc_plan_t *plan;    /* [size] */
    int *ring;          /* [size]: shm candidate's (self's too) local index, the ring it writes in each
                         * candidate's segment; -1 for the others */
    int *kernel;        /* [size]: the ranks on this kernel, ascending (the agree phase's records) */
    int nkernel;        /* how many */
    int nlocal;         /* shm candidates, self included */
    int nnet;           /* peers that may need the network (LC_PLAN_NET, LC_PLAN_SHM_TRY) */
    int *ivs_ring;      /* [size]: index among the ranks on our IVSHMEM region (the ring it writes in
                         * each one's slot); -1 for the others */
    int nivs_rings;     /* ranks on our region, self included */
    int nivs;           /* LC_PLAN_IVSHMEM peers */
    char (*cards)[LC_COORD_CARD_LEN]; /* [size]: each shm candidate's segment card, each IVSHMEM peer's slot
                                       * card, "" if it published none; fetched at once after fence 2
                                       * (lc_fetch_cards_addrs) */
    lc_coord_addrs_t addrs;           /* network addresses of the LC_PLAN_NET and LC_PLAN_SHM_TRY peers,
                                       * fetched at once after fence 2 (lc_fetch_cards_addrs), kept for the
                                       * agree phase's fallbacks */
} lc_wireup_t;

/* lc_pmi_get_ranks's callback: rank r's identity record into ids[r]. */
static int lc_identity_take(int r, const char *val, void *arg)
{
    lc_identity_t *ids = arg;
    if (val == NULL || lc_identity_parse(val, &ids[r]) != 0) {
        lc_log_error("wire-up: no valid identity record from rank %d", r);
        return LC_ERROR;
    }
    return 0;
}

static int lc_exchange_identities(lc_identity_t *ids)
{
    lc_identity_t me;
    lc_identity_self(&me);
    /* The IVSHMEM region we reach (0 none): its id proves co-residence
     * with ranks in other VMs. */
    me.ivs_region = lc_ivshmem_probe();
    if (me.ivs_region == (uint64_t)-1) return LC_ERROR; /* said why */
    lc_cma_cookie_init();
    me.cookie_addr = lc_cma_cookie_addr();
    me.cookie = lc_cma_cookie_value();
    snprintf(lc_world.hostname, sizeof(lc_world.hostname), "%s", me.host);
    lc_init_times_mark("identity, IVSHMEM probe");

    char key[64], val[1024];
    snprintf(key, sizeof(key), "lc-id-%d", lc_world.rank);
    lc_identity_format(&me, val, sizeof(val));
    if (lc_pmi_put(key, val) != 0 || lc_pmi_fence() != 0) return LC_ERROR;
    lc_init_times_mark("PMI put + fence 1");
    ids[lc_world.rank] = me;
    /* Everyone else's, a few requests for all of them under our mpiexec
     * (lc_pmi_get_ranks), not one round trip each. */
    int *peers = malloc(sizeof(int) * (size_t)lc_world.size), n = 0;
    if (!peers) {
        lc_log_error("wire-up: out of memory for %d peers", lc_world.size);
        return LC_ERROR;
    }
    for (int r = 0; r < lc_world.size; r++)
        if (r != lc_world.rank) peers[n++] = r;
    int rc = lc_pmi_get_ranks("lc-id-", peers, n, lc_identity_take, ids);
    free(peers);
    return rc == 0 ? 0 : LC_ERROR; /* said why */
}

/* Shared memory is tried for peers on this kernel, unless the network is
 * forced for all (LOCUS_NET_FORCE) or for other blocks of ranks
 * (LOCUS_NET_BLOCK, which emulates hosts of N ranks on one machine).  In
 * other mount, IPC or user namespaces whether its /dev/shm is ours is not
 * known until we try.  Every test is symmetric. */
static lc_plan_t lc_plan_of(const lc_wireup_t *w, int r)
{
    const lc_identity_t *peer = &w->ids[r], *me = &w->ids[w->rank];
    if (r == w->rank) return LC_PLAN_SELF;
    /* Another kernel (another VM) that maps the same IVSHMEM region. */
    if (!lc_params.net_force && me->ivs_region && peer->ivs_region == me->ivs_region &&
        strcmp(peer->boot_id, me->boot_id) != 0)
        return LC_PLAN_IVSHMEM;
    if (!lc_identity_same_kernel(peer, me) || lc_params.net_force) return LC_PLAN_NET;
    if (lc_params.net_block > 0 && r / lc_params.net_block != w->rank / lc_params.net_block) return LC_PLAN_NET;
    if (peer->ns_mnt != me->ns_mnt || peer->ns_ipc != me->ns_ipc || peer->ns_user != me->ns_user)
        return LC_PLAN_SHM_TRY;
    return LC_PLAN_SHM;
}

static int lc_wireup_classify(lc_wireup_t *w)
{
    /* Before the identity: it carries our NUMA node.  A failed load was
     * reported; NUMA awareness is then off (node unknown). */
    if (lc_params.numa) lc_topo_load();
    lc_init_times_mark("topology (NUMA)");
    if (lc_exchange_identities(w->ids) != 0) return LC_ERROR;
    lc_init_times_mark("PMI get identities");
    /* Ranks on this kernel share its cores (waiting policy) whatever
     * channel reaches them. */
    for (int r = 0; r < w->size; r++)
        if (lc_identity_same_kernel(&w->ids[r], &w->ids[w->rank])) w->kernel[w->nkernel++] = r;
    lc_world.local_size = w->nkernel;
    lc_world.usable_cores = lc_locality_union_cores(w->ids, w->kernel, w->nkernel);
    for (int r = 0; r < w->size; r++) {
        w->plan[r] = lc_plan_of(w, r);
        w->ring[r] = w->plan[r] == LC_PLAN_NET || w->plan[r] == LC_PLAN_IVSHMEM ? -1 : w->nlocal++;
        if (w->plan[r] == LC_PLAN_NET || w->plan[r] == LC_PLAN_SHM_TRY) w->nnet++;
        w->nivs += w->plan[r] == LC_PLAN_IVSHMEM;
        /* The same on both ends: the set of ranks on one region. */
        w->ivs_ring[r] = w->ids[w->rank].ivs_region && w->ids[r].ivs_region == w->ids[w->rank].ivs_region
                             ? w->nivs_rings++ : -1;
    }
    return 0;
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

static int lc_wireup_open(lc_wireup_t *w)
{
    if (w->nlocal > 1) {
        /* Room for this host's segments, before any rank maps anything
         * (issue 13): the ranks that share our directory are those of
         * our mount namespace, or all local ones with LOCUS_SHM_DIR
         * (bind-mounted into every container).  The first of them says
         * why; the others fail quietly. */
        int nhere = 0, first = -1;
        for (int r = 0; r < w->size; r++)
            if (w->plan[r] == LC_PLAN_SELF || w->plan[r] == LC_PLAN_SHM ||
                (w->plan[r] == LC_PLAN_SHM_TRY && lc_params.shm_dir[0])) {
                if (first < 0) first = r;
                nhere++;
            }
        /* Segments that jobs killed during their MPI_Init left behind
         * (lc_shm_sweep.c): their room counts too. */
        lc_shm_sweep_dead(lc_world.kvsname);
        if (lc_shm_check_space(lc_world.kvsname, (uint32_t)nhere, (uint32_t)w->nlocal, first == w->rank) != LC_OK)
            return LC_ERROR;
        lc_init_times_mark("plans, sweep, space check");
        lc_ring_place_t where = { .node = w->ids[w->rank].numa_node, .err = 0 };
        int placed = 0;
        char key[64], card[LC_SHM_CARD_LEN];
        if (lc_shm_open(lc_world.peers, w->rank, w->size, lc_world.kvsname, (uint32_t)w->nlocal, lc_place_rings,
                        &where, &placed, card, sizeof(card)) != 0)
            return LC_ERROR;
        lc_describe_placement(where.node, placed, where.err);
        /* Our segment's name token and header key: only the job's ranks
         * learn them (issue 12, point 3). */
        snprintf(key, sizeof(key), "lc-shmseg-%d", w->rank);
        if (lc_pmi_put(key, card) != 0) return LC_ERROR;
        lc_init_times_mark("shm segment creation");
    }
    /* Peers probe us with CMA after the fence below: let them read us only
     * if CMA is on and some peer may share memory with us. */
    if (lc_params.cma && w->nlocal > 1) lc_cma_allow_peers();
    if (w->nivs > 0) {
        char key[64], card[LC_IVS_CARD_LEN];
        if (lc_ivshmem_open(lc_world.peers, w->rank, w->size, lc_world.kvsname, (uint32_t)w->nivs_rings, card,
                            sizeof(card)) != 0)
            return LC_ERROR;
        snprintf(key, sizeof(key), "lc-ivs-%d", w->rank);
        if (lc_pmi_put(key, card) != 0) return LC_ERROR;
    }
    if (w->nnet > 0) {
        char key[64], addr[LC_OFI_ADDR_TEXT_MAX];
        if (lc_ofi_open(lc_world.peers, w->rank, w->size, w->nnet, addr, sizeof(addr)) != 0) {
            lc_log_error("rank %d cannot open its network endpoint, which it needs to reach %d rank(s) %s",
                         w->rank, w->nnet,
                         lc_params.net_force ? "(LOCUS_NET_FORCE=1)" : "on other hosts or in other containers");
            return LC_ERROR;
        }
        snprintf(key, sizeof(key), "lc-ofi-%d", w->rank);
        if (lc_pmi_put(key, addr) != 0) return LC_ERROR;
        lc_init_times_mark("ofi endpoint open");
    }
    int rc = lc_pmi_fence() != 0 ? LC_ERROR : LC_OK;
    lc_init_times_mark("PMI fence 2");
    return rc;
}

/* Single copy for a connected shm peer: CMA where enabled and the probe
 * reads its cookie.  Across NUMA nodes the pipeline moves the data over
 * the interconnect twice, CMA once: such a pair pulls sooner. */
static void lc_connect_cma(lc_peer_t *p, const lc_identity_t *id, const lc_identity_t *me)
{
    char base[180], numa[96], why[160];
    bool far = lc_topo_far(me->numa_node, id->numa_node);
    /* LOCUS_CMA_THRESHOLD=auto: measured per size class on first use
     * (src/pt2pt/lc_pt2pt_pick.c); across NUMA nodes the fixed XNUMA one. */
    bool calibrate = !far && lc_params.cma_threshold == LC_PARAM_SIZE_AUTO;
    size_t pull_min = far ? lc_params.cma_threshold_xnuma : lc_params.cma_threshold;
    if (!lc_params.cma)
        snprintf(base, sizeof(base), "%s", "same kernel; shared-memory segment attached; CMA disabled by LOCUS_CMA=0");
    else if (me->ns_pid && id->ns_pid && me->ns_pid != id->ns_pid)
        /* Containers (or VMs' containers) sharing a shm directory: the pid
         * it published is one of its own PID namespace and names another
         * process here, or none; not worth a probe. */
        snprintf(base, sizeof(base), "same kernel; shared memory; no CMA: other PID namespace");
    else if (lc_cma_connect(p, id->pid, id->cookie_addr, id->cookie, pull_min, why, sizeof(why)) == 0) {
        lc_peer_pick_reset(p, calibrate); /* auto: pull_min becomes where candidates start */
        snprintf(base, sizeof(base), "same kernel; shared-memory segment attached; CMA probe read the cookie");
    } else
        snprintf(base, sizeof(base), "same kernel; shared memory; no CMA: %.130s", why);
    lc_coord_reason_numa(me->numa_node, id->numa_node, p, numa, sizeof(numa));
    snprintf(p->reason, sizeof(p->reason), "%.140s; %.110s", base, numa);
}

/* A shm candidate whose segment does not map: an error when it shares
 * our namespaces, else (LC_PLAN_SHM_TRY) the reason it may go to the
 * network once the pair agrees. */
static int lc_connect_shm_peer(const lc_wireup_t *w, int r)
{
    const lc_identity_t *id = &w->ids[r], *me = &w->ids[w->rank];
    lc_peer_t *p = &lc_world.peers[r];
    char why[600], domains[96];
    const char *card = w->cards[r];
    if (!card[0]) snprintf(why, sizeof(why), "it published no shared-memory segment");
    else if (lc_shm_connect(p, card, (uint32_t)w->ring[w->rank], (uint32_t)w->ring[r], why, sizeof(why)) == 0) {
        lc_connect_cma(p, id, me);
        return 0;
    }
    lc_coord_reason_domains(id, me, domains, sizeof(domains));
    if (w->plan[r] == LC_PLAN_SHM_TRY) {
        /* Another /dev/shm: the network it is, if the peer agrees. */
        snprintf(p->reason, sizeof(p->reason), "same kernel, %.70s: %.110s", domains, why);
        return 0;
    }
    if (strncmp(why, "cannot open", 11) != 0) {
        /* The segment is there but is not a sound one of this job's
         * (owner, mode, key, geometry): say so, not "share /dev/shm". */
        lc_log_error("rank %d (pid %d on %s) runs on this kernel but its shared-memory segment was rejected: %s",
                     r, (int)id->pid, id->host, why);
        return LC_ERROR;
    }
    lc_log_error("rank %d (pid %d on %s) runs on this kernel but its shared memory is not visible here (%s): %s. "
                 "Share /dev/shm (and the IPC namespace) between the containers of this job.",
                 r, (int)id->pid, id->host, domains, why);
    return LC_ERROR;
}

/* A rank in another VM on our IVSHMEM region: its slot must check out
 * (the region id proved that we map the same memory). */
static int lc_connect_ivshmem_peer(const lc_wireup_t *w, int r)
{
    char why[300];
    const char *card = w->cards[r];
    if (!card[0]) snprintf(why, sizeof(why), "it published no IVSHMEM slot");
    else if (lc_ivshmem_connect(&lc_world.peers[r], card, (uint32_t)w->ivs_ring[w->rank], (uint32_t)w->ivs_ring[r],
                                why, sizeof(why)) == 0)
        return 0;
    lc_log_error("rank %d (pid %d on %s, another kernel) maps our IVSHMEM region %016llx, but its slot cannot be "
                 "used: %s", r, (int)w->ids[r].pid, w->ids[r].host, (unsigned long long)w->ids[r].ivs_region, why);
    return LC_ERROR;
}

/* lc_pmi_get_ranks's callback: rank r's segment or slot card (NULL: none). */
static int lc_card_take(int r, const char *card, void *arg)
{
    lc_wireup_t *w = arg;
    if (card && strlen(card) >= sizeof(w->cards[r])) {
        lc_log_error("wire-up: rank %d published a shared-memory or IVSHMEM card of %zu characters (at most %zu)",
                     r, strlen(card), sizeof(w->cards[r]) - 1);
        return LC_ERROR;
    }
    snprintf(w->cards[r], sizeof(w->cards[r]), "%s", card ? card : "");
    return 0;
}

/* What connect needs of the peers, read after fence 2 in a few requests
 * each (lc_pmi_get_ranks): every shm candidate's segment card, every
 * IVSHMEM peer's slot card, and the network address of every peer that
 * is or may become a network peer (kept for the agree phase). */
static int lc_fetch_cards_addrs(lc_wireup_t *w)
{
    int *want = malloc(sizeof(int) * (size_t)w->size), n = 0, nivs = 0, nnet = 0;
    if (!want) {
        lc_log_error("wire-up: out of memory for %d peers", w->size);
        return LC_ERROR;
    }
    for (int r = 0; r < w->size; r++)
        if (w->plan[r] == LC_PLAN_SHM || w->plan[r] == LC_PLAN_SHM_TRY) want[n++] = r;
    int rc = lc_pmi_get_ranks("lc-shmseg-", want, n, lc_card_take, w);
    for (int r = 0; r < w->size; r++)
        if (w->plan[r] == LC_PLAN_IVSHMEM) want[nivs++] = r;
    if (rc == 0) rc = lc_pmi_get_ranks("lc-ivs-", want, nivs, lc_card_take, w);
    for (int r = 0; r < w->size; r++)
        if (w->plan[r] == LC_PLAN_NET || w->plan[r] == LC_PLAN_SHM_TRY) want[nnet++] = r;
    if (rc == 0 && nnet > 0) rc = lc_coord_addrs_fetch(&w->addrs, w->size, want, nnet);
    free(want);
    return rc == 0 ? 0 : LC_ERROR; /* said why */
}

static int lc_wireup_connect(lc_wireup_t *w)
{
    if (lc_fetch_cards_addrs(w) != 0) return LC_ERROR;
    lc_init_times_mark("PMI get cards, network addresses");
    for (int r = 0; r < w->size; r++) {
        int rc = 0;
        char cause[96];
        switch (w->plan[r]) {
        case LC_PLAN_SELF: break; /* set up by lc_wireup_init */
        case LC_PLAN_SHM: rc = lc_connect_shm_peer(w, r); break;
        case LC_PLAN_SHM_TRY:
            rc = lc_connect_shm_peer(w, r);
            if (rc == 0) rc = lc_coord_admit_net(&w->addrs, w->ids, r);
            break;
        case LC_PLAN_IVSHMEM: rc = lc_connect_ivshmem_peer(w, r); break;
        case LC_PLAN_NET:
            lc_coord_reason_network(w->ids, w->rank, r, cause, sizeof(cause));
            rc = lc_coord_connect_net(&w->addrs, w->ids, r, cause);
            break;
        }
        if (rc != 0) return LC_ERROR;
    }
    return 0;
}

/* Uncertain pairs keep shared memory only if both ends mapped
 * (lc_coord_agree.c). */
static int lc_wireup_agree(lc_wireup_t *w)
{
    bool *uncertain = calloc((size_t)w->size, sizeof(bool));
    if (!uncertain) {
        lc_log_error("wire-up: out of memory for %d peers", w->size);
        return LC_ERROR;
    }
    lc_agree_in_t in = { .rank = w->rank, .size = w->size, .uncertain = uncertain, .kernel = w->kernel,
                         .nkernel = w->nkernel, .ids = w->ids, .addrs = &w->addrs };
    for (int r = 0; r < w->size; r++) {
        uncertain[r] = w->plan[r] == LC_PLAN_SHM_TRY;
        in.nuncertain += uncertain[r];
    }
    for (int k = 0; k < w->nkernel; k++)
        if (w->kernel[k] == w->rank) in.kernel_index = k;
    int rc = lc_coord_agree(&in);
    free(uncertain);
    return rc;
}

static int lc_wireup_finish(lc_wireup_t *w)
{
    /* Containers that proved shared memory after all need no network:
     * close the endpoint so that progress does not poll it. */
    int nofi = 0;
    for (int r = 0; r < w->size; r++) nofi += lc_world.peers[r].kind == LC_CHANNEL_OFI;
    if (!nofi) lc_ofi_close();
    /* No peer reads us unless we read it: the probe's outcome is the same
     * both ways (same uid and PID namespace, each allowed the other), so a
     * rank that pulls from no peer is pulled from by none and takes back
     * its permission to be read. */
    int ncma = 0;
    for (int r = 0; r < w->size; r++)
        ncma += r != w->rank && lc_world.peers[r].kind == LC_CHANNEL_SHM && lc_world.peers[r].can_pull;
    if (!ncma) lc_cma_forbid_peers();
    /* No peer sends before its MPI_Init returns, after the last fence. */
    lc_shm_start();
    /* A region no peer uses is given back (unmapped, no slot held). */
    if (w->nivs > 0) lc_ivshmem_start();
    else lc_ivshmem_close();
    for (int r = 0; r < w->size; r++) {
        if (lc_world.peers[r].kind == LC_CHANNEL_NONE) {
            lc_log_error("internal: no channel reaches rank %d on host %s", r, w->ids[r].host);
            return LC_ERROR;
        }
    }
    return 0;
}

/* The self channel hands a packet over in place, so any size would do;
 * it takes the limits a shm peer with our cells would have, so that a
 * message is eager or rendezvous whether it goes to oneself or to a
 * neighbour (a blocking send to oneself completes for the same sizes).
 * Everything is pulled: a memcpy. */
static void lc_wireup_self(lc_peer_t *self)
{
    size_t payload = lc_shm_packet_max();
    self->kind = LC_CHANNEL_SELF;
    self->ops = &lc_channel_self_ops;
    self->eager_limit = lc_params.eager_limit < payload ? lc_params.eager_limit : payload;
    self->chunk = payload - sizeof(lc_pkt_data_t);
    if (lc_params.pipeline_chunk && lc_params.pipeline_chunk < self->chunk) self->chunk = lc_params.pipeline_chunk;
    self->can_pull = true;
    self->pull_min = 0;
    snprintf(self->reason, sizeof(self->reason), "same process");
}

/* The peer table: every peer unreached, but self. */
static int lc_wireup_init(lc_wireup_t *w)
{
    memset(w, 0, sizeof(*w));
    w->rank = lc_world.rank;
    w->size = lc_world.size;
    size_t n = (size_t)w->size;
    w->ids = calloc(n, sizeof(*w->ids));
    w->plan = calloc(n, sizeof(*w->plan));
    w->ring = calloc(n, sizeof(*w->ring));
    w->kernel = calloc(n, sizeof(*w->kernel));
    w->ivs_ring = calloc(n, sizeof(*w->ivs_ring));
    w->cards = calloc(n, sizeof(*w->cards));
    if (!w->ids || !w->plan || !w->ring || !w->kernel || !w->ivs_ring || !w->cards) {
        lc_log_error("wire-up: out of memory for %d peers", w->size);
        return LC_ERROR;
    }
    /* The table never moves: peers added after MPI_Init keep every
     * pointer into it valid (lc_universe.h). */
    if (lc_universe_create(w->size) != LC_OK) return LC_ERROR;
    lc_wireup_self(&lc_world.peers[w->rank]);
    lc_world.local_size = 1;
    lc_ring_placement[0] = 0;
    return 0;
}

static void lc_wireup_free(lc_wireup_t *w)
{
    free(w->ids);
    free(w->plan);
    free(w->ring);
    free(w->kernel);
    free(w->ivs_ring);
    free(w->cards);
    lc_coord_addrs_free(&w->addrs);
}

/* A job of one: no exchange, no channel but self. */
static void lc_wireup_alone(void)
{
    lc_identity_t me;
    lc_identity_self(&me);
    snprintf(lc_world.hostname, sizeof(lc_world.hostname), "%s", me.host);
    lc_world.usable_cores = lc_locality_union_cores(&me, &(int){ 0 }, 1);
}

/* Waits yield when ranks on this kernel outnumber their cores, or as
 * LOCUS_POLL says (sleep: yield, then sleep on the doorbell); auto's
 * spinning waits sleep on the doorbell while processes outside the job
 * take their core (lc_starve.c).  A rank that leads a session of its own
 * (LOCUS_RANK_SESSIONS=1, Hydra) also sleeps when oversubscribed: under
 * the scheduler's autogroups a sched_yield hands the core only to tasks
 * of the yielder's session, where no other rank is (docs/architecture.md
 * "Ranks stay in mpiexec's session").  Ranks whose waits may sleep look at
 * their shared-memory peers' doorbells after each packet (the peers'
 * waits may sleep too); with a progress thread the thread owns the
 * doorbell (and the peers already look), so the application's waits only
 * yield. */
static void lc_set_wait_policy(void)
{
    int oversubscribed = lc_world.local_size > lc_world.usable_cores;
    lc_world.starve_when_idle = 0;
    switch (lc_params.poll_mode) {
    case LC_POLL_SPIN: lc_world.yield_when_idle = lc_world.sleep_when_idle = 0; break;
    case LC_POLL_YIELD: lc_world.yield_when_idle = 1, lc_world.sleep_when_idle = 0; break;
    case LC_POLL_SLEEP: lc_world.yield_when_idle = lc_world.sleep_when_idle = 1; break;
    default: /* auto */
        lc_world.yield_when_idle = oversubscribed;
        lc_world.sleep_when_idle = oversubscribed && getsid(0) == getpid();
        lc_world.starve_when_idle = !oversubscribed;
        break;
    }
    if (lc_params.async_progress) lc_world.sleep_when_idle = lc_world.starve_when_idle = 0;
    if (lc_world.sleep_when_idle)
        lc_shm_bell_ring_peers(LC_SHM_BELL_ALWAYS);
    else if (lc_world.starve_when_idle)
        lc_shm_bell_ring_peers(LC_SHM_BELL_IF_PRESSED);
    lc_ofi_set_idle_yield(lc_world.yield_when_idle);
}

int lc_coord_wireup(void)
{
    lc_wireup_t w;
    int rc = lc_wireup_init(&w);
    if (rc == 0 && w.size > 1) {
        rc = lc_wireup_classify(&w);
        if (rc == 0) rc = lc_wireup_open(&w);
        if (rc == 0) rc = lc_wireup_connect(&w);
        lc_init_times_mark("connect: rings, CMA probe, ofi");
        if (rc == 0) rc = lc_wireup_agree(&w);
        lc_init_times_mark("PMI fence 3, agree");
        if (rc == 0) rc = lc_wireup_finish(&w);
        lc_init_times_mark("finish");
    } else if (rc == 0) {
        lc_wireup_alone();
    }
    if (rc == 0) {
        lc_set_wait_policy();
        if (w.size > 1) lc_liveness_start(w.ids, w.size, w.rank);
        if (lc_params.show_channels && w.size > 1) lc_coord_show_channels(lc_ring_placement);
        lc_init_times_mark("wait policy, liveness");
    } else {
        lc_ofi_close();
        lc_shm_close();
        lc_ivshmem_close();
        lc_cma_forbid_peers();
    }
    lc_topo_unload();
    lc_wireup_free(&w);
    return rc;
}

void lc_coord_teardown(void)
{
    lc_liveness_stop();
    /* First: the goodbye exchange still delivers packets to the peers. */
    lc_ofi_close();
    lc_shm_close();
    lc_ivshmem_close();
    lc_cma_forbid_peers(); /* after the goodbye: nobody reads us any more */
    lc_universe_destroy();
}
