/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_xconnect.c — MPI_Comm_accept / MPI_Comm_connect between groups of
 * two different jobs (separate mpiexec runs, or a parent and the children
 * it spawned), over the ofi channel.  docs/dynamic.md, "Between jobs".
 *
 * Neither side's peer table knows the other job.  The steps, collective
 * over each side's communicator:
 *   1. every member opens its network endpoint (lazily) and the group
 *      allgathers its members' entries "<world rank> <kvsname> <address>";
 *   2. first contact: the connecting root adds the port's owner (its
 *      address is in the port name) as a peer and sends it a hello (the
 *      channel's; the owner's progress adds the sender as a peer and
 *      answers with a welcome, which also tells each side the id under
 *      which the other knows it).  An accept takes the hellos of its
 *      port in arrival order; it then sends the connector a "go" — until
 *      then a connector sends nothing more, so two connectors of one port
 *      never mix their messages;
 *   3. the roots swap their group tables over a two-process "pair"
 *      communicator (MPI_COMM_WORLD's collective context, the connector
 *      rank 0, the acceptor rank 1) and broadcast them; every member adds
 *      each remote member as a peer (its receive buffers posted) — one
 *      entry per address text: a process met twice keeps its id (the
 *      text names the endpoint's incarnation, so a later process that
 *      the kernel gave the same IP address and port is a new peer);
 *   4. the ids: packets carry the sender's id in the receiver's table, so
 *      each side gathers its members' ids for the remote members (a
 *      size x remote-size matrix), the roots swap the matrices, and every
 *      member learns its id in every remote member's table;
 *   5. the intercommunicator bridge (lc_inter_connect_map,
 *      lc_mpi_bridge.c) agrees the context id; it sends member lists as
 *      comm ranks, which each side maps to its own ids.  The first round
 *      of its agreement (an allreduce over each group, then the roots'
 *      swap) also guarantees that no member sends to a remote member
 *      before that member has posted buffers for it: step 3 is done
 *      everywhere before either root gets past that round, and the
 *      intercommunicator exists only after it.
 */
#include "mpi/lc_mpi_xconnect.h"
#include "channel/lc_ofi.h"
#include "coll/lc_coll.h"
#include "coord/lc_universe.h"
#include "coord/lc_world.h"
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_comm.h"
#include "mpi/lc_mpi_port.h"
#include "pt2pt/lc_pt2pt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One member's entry: "<world rank> <kvsname> <address>". */
#define LC_XENTRY 1024

/* ---- peers met after wire-up: one id per address text ------------------- */

typedef struct lc_xpeer {
    char *addr;
    int id;
    uint64_t gid; /* 0 until known (lc_x_gid) */
} lc_xpeer_t;

/* Hellos waiting for an accept (below). */
typedef struct lc_xarrival {
    unsigned port;
    int id;
} lc_xarrival_t;

static lc_xpeer_t *lc_xpeers;
static int lc_nxpeers, lc_xpeers_cap;

static uint64_t lc_x_hash(const char *kvs, int rank)
{
    uint64_t h = 14695981039346656037ull;
    for (const unsigned char *s = (const unsigned char *)kvs; *s; s++) h = (h ^ *s) * 1099511628211ull;
    h = (h ^ (uint64_t)(uint32_t)rank) * 1099511628211ull;
    return h | 1; /* never 0 */
}

uint64_t lc_x_gid(int id)
{
    if (id < lc_world.size) return lc_x_hash(lc_world.kvsname, id);
    for (int i = 0; i < lc_nxpeers; i++)
        if (lc_xpeers[i].id == id) return lc_xpeers[i].gid;
    return 0;
}

bool lc_x_before(int a, int b)
{
    if (a < lc_world.size && b < lc_world.size) return a < b; /* one job: by world rank, as always */
    return lc_x_gid(a) < lc_x_gid(b);
}

/* The id of the process at `addr`, added and connected if new; -1 after
 * logging.  kvs/rank (NULL/-1 when unknown yet) name it for diagnostics
 * and ordering. */
static int lc_x_peer_for(const char *addr, const char *kvs, int rank)
{
    for (int i = 0; i < lc_nxpeers; i++) {
        if (strcmp(lc_xpeers[i].addr, addr) != 0) continue;
        if (kvs && !lc_xpeers[i].gid) lc_xpeers[i].gid = lc_x_hash(kvs, rank);
        return lc_xpeers[i].id;
    }
    if (lc_nxpeers == lc_xpeers_cap) {
        int cap = lc_xpeers_cap ? 2 * lc_xpeers_cap : 16;
        lc_xpeer_t *t = realloc(lc_xpeers, sizeof(*t) * (size_t)cap);
        if (!t) return -1;
        lc_xpeers = t;
        lc_xpeers_cap = cap;
    }
    char *copy = strdup(addr);
    if (!copy) return -1;
    int id = lc_universe_add();
    if (id < 0) {
        free(copy);
        return -1;
    }
    char host[64], why[200];
    if (kvs) snprintf(host, sizeof(host), "%.40s rank %d", kvs, rank);
    else snprintf(host, sizeof(host), "another job");
    if (lc_ofi_connect(&lc_world.peers[id], addr, host, why, sizeof(why)) != 0) {
        lc_log_error("dynamic processes: cannot reach %s: %s", host, why);
        free(copy);
        return -1; /* the entry stays unreached (kind NONE): nothing sends to it */
    }
    lc_xpeers[lc_nxpeers++] = (lc_xpeer_t){ .addr = copy, .id = id, .gid = kvs ? lc_x_hash(kvs, rank) : 0 };
    return id;
}

static lc_xarrival_t *lc_xarrivals;
static int lc_nxarrivals, lc_xarrivals_cap;

void lc_x_fini(void)
{
    for (int i = 0; i < lc_nxpeers; i++) free(lc_xpeers[i].addr);
    free(lc_xpeers);
    lc_xpeers = NULL;
    lc_nxpeers = lc_xpeers_cap = 0;
    free(lc_xarrivals);
    lc_xarrivals = NULL;
    lc_nxarrivals = lc_xarrivals_cap = 0;
}

/* ---- hellos waiting for an accept --------------------------------------- */


/* From progress (the channel): a process of another job says hello to
 * port `cookie`. */
static lc_peer_t *lc_x_stranger(const char *addr, uint32_t cookie)
{
    if (!lc_port_is_open(cookie)) {
        lc_log_warn("dynamic processes: a process of another job connected to port %u, which is not open here; "
                    "ignored (its MPI_Comm_connect waits)", (unsigned)cookie);
        return NULL;
    }
    if (lc_nxarrivals == lc_xarrivals_cap) {
        int cap = lc_xarrivals_cap ? 2 * lc_xarrivals_cap : 8;
        lc_xarrival_t *t = realloc(lc_xarrivals, sizeof(*t) * (size_t)cap);
        if (!t) return NULL;
        lc_xarrivals = t;
        lc_xarrivals_cap = cap;
    }
    int id = lc_x_peer_for(addr, NULL, -1);
    if (id < 0) return NULL;
    lc_xarrivals[lc_nxarrivals++] = (lc_xarrival_t){ .port = cookie, .id = id };
    return &lc_world.peers[id];
}

void lc_x_init(void)
{
    lc_ofi_stranger_hook = lc_x_stranger;
}

int lc_x_take_arrival(unsigned port)
{
    for (int i = 0; i < lc_nxarrivals; i++) {
        if (lc_xarrivals[i].port != port) continue;
        int id = lc_xarrivals[i].id;
        memmove(&lc_xarrivals[i], &lc_xarrivals[i + 1], sizeof(*lc_xarrivals) * (size_t)(lc_nxarrivals - i - 1));
        lc_nxarrivals--;
        return id;
    }
    return -1;
}

void lc_x_requeue(unsigned port, int id)
{
    /* Room: the entry was just taken. */
    memmove(&lc_xarrivals[1], &lc_xarrivals[0], sizeof(*lc_xarrivals) * (size_t)lc_nxarrivals);
    lc_xarrivals[0] = (lc_xarrival_t){ .port = port, .id = id };
    lc_nxarrivals++;
}

/* ---- the connection -------------------------------------------------------- */

/* The roots' two-process communicator: no context of its own (MPI_COMM_WORLD's
 * collective context, with the XPORT/XBRIDGE tags); never published. */
typedef struct lc_xpair {
    lc_comm_t comm;
    int world[2];
    lc_peer_t *peers[2];
} lc_xpair_t;

static void lc_xpair_init(lc_xpair_t *p, bool accept, int other)
{
    memset(p, 0, sizeof(*p));
    int me = accept ? 1 : 0;
    p->world[me] = lc_world.rank;
    p->world[1 - me] = other;
    p->peers[me] = &lc_world.peers[lc_world.rank];
    p->peers[1 - me] = &lc_world.peers[other];
    p->comm.handle = MPI_COMM_NULL;
    p->comm.ctx = lc_comm_builtin[0]->ctx;
    p->comm.rank = me;
    p->comm.size = 2;
    p->comm.world_ranks = p->world;
    p->comm.peers = p->peers;
    p->comm.peer_count = 2;
    p->comm.errhandler = MPI_ERRORS_RETURN;
    p->comm.context_slot = -1;
    p->comm.refcount = 1; /* on the stack: never destroyed */
}

/* Swap a block with the other root: send ours, receive theirs. */
static int lc_xswap(lc_xpair_t *p, int tag, const void *out, size_t outlen, void *in, size_t inlen)
{
    lc_request_t *s = NULL;
    int other = 1 - p->comm.rank;
    int rc = lc_pt2pt_isend(out, outlen, other, tag, &p->comm, LC_CTX_COLL, LC_MODE_STANDARD, &s);
    if (rc == MPI_SUCCESS) rc = lc_pt2pt_recv(in, inlen, other, tag, &p->comm, LC_CTX_COLL, MPI_STATUS_IGNORE);
    int wrc = s ? lc_pt2pt_wait_release(s, MPI_STATUS_IGNORE) : MPI_SUCCESS;
    return rc != MPI_SUCCESS ? rc : wrc;
}

/* The connecting root's first contact: hello, welcome, go. */
static int lc_x_contact(const lc_port_t *port, int *other_p)
{
    int other = lc_x_peer_for(port->addr, NULL, -1);
    if (other < 0)
        return lc_error(MPI_ERR_PORT, "cannot reach the owner of the port (see the message above)");
    lc_peer_t *peer = &lc_world.peers[other];
    while (lc_ofi_hello(peer, port->id) != LC_OK)
        if (!lc_progress()) lc_progress_idle();
    while (!lc_ofi_welcomed(peer))
        if (!lc_progress()) lc_progress_idle();
    *other_p = other;
    return MPI_SUCCESS;
}

/* Parse an entry; 0 or -1. */
static int lc_xentry_parse(char *e, int *rank, char **kvs, char **addr)
{
    e[LC_XENTRY - 1] = '\0';
    char *sp1 = strchr(e, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    if (!sp2) return -1;
    *sp1 = *sp2 = '\0';
    *rank = atoi(e);
    *kvs = sp1 + 1;
    *addr = sp2 + 1;
    return 0;
}

int lc_x_connect(lc_comm_t *c, int root, bool accept, const lc_port_t *port, int other, int lrc, lc_comm_t **out_p)
{
    int n = c->size, rn = 0, rc;
    char *tab = malloc((size_t)n * LC_XENTRY), *rtab = NULL, mine[LC_XENTRY];
    int *ids = NULL, *mat = NULL, *rmat = NULL;
    lc_xpair_t pair;
    bool is_root = c->rank == root;
    memset(mine, 0, sizeof(mine));
    /* 1. endpoints and the local table */
    int bad = lc_ofi_ensure_open(lc_world.peers, lc_world.rank, lc_world.size) != 0 || !tab;
    snprintf(mine, sizeof(mine), "%d %s %s", lc_world.rank, lc_world.kvsname, lc_ofi_address());
    int anybad = 0;
    rc = lc_coll_allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, c);
    if (rc == MPI_SUCCESS && anybad)
        rc = lc_error(MPI_ERR_OTHER, "a member of the communicator could not open its network endpoint (see its "
                                     "error output): processes of two jobs talk through the network channel");
    if (rc == MPI_SUCCESS) rc = lc_coll_allgather(mine, LC_XENTRY, MPI_CHAR, tab, LC_XENTRY, MPI_CHAR, c);
    /* 2. first contact, and 3. the tables (the roots) */
    int hdr[2] = { lrc, 0 };
    if (is_root && rc == MPI_SUCCESS && lrc == MPI_SUCCESS) {
        int go = 1;
        if (!accept) {
            hdr[0] = lc_x_contact(port, &other);
            if (hdr[0] == MPI_SUCCESS) {
                lc_xpair_init(&pair, accept, other);
                hdr[0] = lc_pt2pt_recv(&go, sizeof(go), 1, (int)(LC_TAG_XPORT | port->id), &pair.comm, LC_CTX_COLL,
                                       MPI_STATUS_IGNORE);
            }
        } else {
            lc_xpair_init(&pair, accept, other);
            hdr[0] = lc_pt2pt_send(&go, sizeof(go), 0, (int)(LC_TAG_XPORT | port->id), &pair.comm, LC_CTX_COLL,
                                   LC_MODE_STANDARD);
        }
        if (hdr[0] == MPI_SUCCESS)
            hdr[0] = lc_xswap(&pair, (int)(LC_TAG_XPORT | port->id), &n, sizeof(n), &hdr[1], sizeof(hdr[1]));
        if (hdr[0] == MPI_SUCCESS && (hdr[1] < 1 || hdr[1] > 1 << 20))
            hdr[0] = lc_error(MPI_ERR_INTERN, "the remote root announced a group of %d", hdr[1]);
        if (hdr[0] == MPI_SUCCESS && !(rtab = malloc((size_t)hdr[1] * LC_XENTRY)))
            hdr[0] = lc_error(MPI_ERR_NO_MEM, "out of memory for a remote group of %d", hdr[1]);
        if (hdr[0] == MPI_SUCCESS)
            hdr[0] = lc_xswap(&pair, (int)(LC_TAG_XPORT | port->id), tab, (size_t)n * LC_XENTRY, rtab,
                              (size_t)hdr[1] * LC_XENTRY);
    }
    if (rc == MPI_SUCCESS) rc = lc_coll_bcast(hdr, 2, MPI_INT, root, c);
    if (rc == MPI_SUCCESS && hdr[0] != MPI_SUCCESS)
        rc = is_root ? hdr[0]
                     : lc_error(MPI_ERR_OTHER, "the root (rank %d) failed to connect to the other job (see its error)",
                                root);
    rn = hdr[1];
    if (rc == MPI_SUCCESS && !is_root && !(rtab = malloc((size_t)rn * LC_XENTRY)))
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a remote group of %d", rn);
    if (rc == MPI_SUCCESS) rc = lc_coll_bcast(rtab, (size_t)rn * LC_XENTRY, MPI_CHAR, root, c);
    /* 3. every member adds the remote members */
    if (rc == MPI_SUCCESS) {
        ids = malloc(sizeof(int) * (size_t)rn);
        mat = malloc(sizeof(int) * (size_t)rn * (size_t)n);
        rmat = malloc(sizeof(int) * (size_t)rn * (size_t)n);
        if (!ids || !mat || !rmat) rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a remote group of %d", rn);
    }
    int failed = 0;
    for (int j = 0; rc == MPI_SUCCESS && j < rn; j++) {
        int rrank;
        char *kvs, *addr;
        ids[j] = lc_xentry_parse(rtab + (size_t)j * LC_XENTRY, &rrank, &kvs, &addr) == 0 && addr[0]
                     ? lc_x_peer_for(addr, kvs, rrank)
                     : -1;
        if (ids[j] < 0) failed = 1;
    }
    /* 4. the ids each side gave the other's members */
    if (rc == MPI_SUCCESS) rc = lc_coll_allreduce(&failed, &anybad, 1, MPI_INT, MPI_MAX, c);
    if (rc == MPI_SUCCESS) rc = lc_coll_gather(ids, (size_t)rn, MPI_INT, mat, (size_t)rn, MPI_INT, root, c);
    int xrc = anybad ? lc_error(MPI_ERR_OTHER, "a member could not reach the other job's processes") : rc;
    /* Both roots swap their status even when a member failed, so that
     * neither waits; then each tells its group. */
    int st2[2] = { MPI_SUCCESS, xrc };
    if (is_root && rc == MPI_SUCCESS) {
        int theirs = MPI_SUCCESS;
        st2[0] = lc_xswap(&pair, (int)(LC_TAG_XPORT | port->id), &xrc, sizeof(int), &theirs, sizeof(int));
        if (st2[0] == MPI_SUCCESS && xrc == MPI_SUCCESS && theirs != MPI_SUCCESS)
            st2[1] = lc_error(MPI_ERR_OTHER, "the other job could not reach this group");
        if (st2[0] == MPI_SUCCESS && st2[1] == MPI_SUCCESS)
            st2[0] = lc_xswap(&pair, (int)(LC_TAG_XPORT | port->id), mat, sizeof(int) * (size_t)rn * (size_t)n, rmat,
                              sizeof(int) * (size_t)rn * (size_t)n);
    }
    if (rc == MPI_SUCCESS) rc = lc_coll_bcast(st2, 2, MPI_INT, root, c);
    if (rc == MPI_SUCCESS) rc = st2[0] != MPI_SUCCESS ? st2[0] : st2[1];
    if (rc == MPI_SUCCESS) rc = lc_coll_bcast(rmat, (size_t)rn * (size_t)n, MPI_INT, root, c);
    /* rmat[j * n + i]: remote member j's id for our member i */
    for (int j = 0; rc == MPI_SUCCESS && j < rn; j++)
        lc_ofi_set_remote_id(&lc_world.peers[ids[j]], (uint32_t)rmat[(size_t)j * (size_t)n + (size_t)c->rank]);
    /* 5. the bridge */
    if (rc == MPI_SUCCESS)
        rc = lc_inter_connect_map(c, root, is_root ? &pair.comm : NULL, is_root ? 1 - pair.comm.rank : -1,
                                  (int)(LC_TAG_XBRIDGE | (is_root ? port->id : 0)), ids, rn, out_p);
    free(tab);
    free(rtab);
    free(ids);
    free(mat);
    free(rmat);
    return rc;
}
