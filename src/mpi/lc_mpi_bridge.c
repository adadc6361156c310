/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_bridge.c — the "bridge" between the two groups of an
 * intercommunicator being made (MPI_Intercomm_create(_from_groups),
 * MPI_Comm_dup / split / create and MPI_Intercomm_merge of one,
 * MPI_Comm_accept / connect / join), and the context-id agreement over
 * both groups.
 *
 * lc_bridge_open: the two leaders swap their group's size, a flag and
 * member list, and each broadcasts what it got to its group; the
 * agreement's first round rides on that swap.
 *
 * lc_bridge_agree: lc_mpi_ctx.c's agreement, one round being: every
 * member offers (and holds) slots, each group ANDs its offers over its
 * local intracommunicator, the leaders swap their group's result and
 * broadcast the other's.  Every member of both groups then holds the
 * same pair of results and decides alike: the intercommunicator's slot
 * (the lowest in both), its hidden local intracommunicator's (the lowest
 * other one in its own group's), else again, else (every member offered
 * all it had) out of context ids — as MPI_Comm_idup does on an
 * intercommunicator.  Until session 18 the bridge ANDed the free masks
 * as they were when read, held nothing, and picked the lowest slot
 * after the leaders' exchange had waited: a thread creating another
 * communicator meanwhile (or an idup finishing) could take the same slot.
 *
 * One leader round trip for the header and the first round (session 19;
 * session 18 swapped headers, then ran the rounds): every member makes
 * its first offer and the group ANDs it before the leaders meet, and the
 * leaders' header carries that AND.  The first round needs no key: its
 * offer is a window that defers to nobody, and other agreements compare
 * only established ones' keys (lc_mpi_ctx.c), which this one becomes at
 * its first round's end, after the key is set from both headers.  The
 * offer stays held until lc_bridge_agree decides (or lc_bridge_abandon),
 * across the member list's broadcast, so no agreement in progress here
 * can take those slots while this one waits.
 *
 * The key.  Both groups must give the agreement one key, different from
 * that of any other agreement in progress that shares a member with it.
 * Each group names its side by (its local intracommunicator's context
 * id, that communicator's ctx_seq, the world id of its rank 0); the key
 * is the two sides in order, behind a first word whose low half is 0
 * (lc_ctx_agreement_begin's keys have 1 or more there).  Unique: two
 * communicators alive with the same rank-0 process have different
 * context ids on it, and ctx_seq tells apart the agreements started on
 * one communicator (its members start them in the same order); two
 * bridges sharing a member P have different sides at P, and one's side
 * at P cannot be the other's remote side, whose communicator does not
 * contain P.  Between jobs (lc_mpi_xconnect.c) the remote side's world
 * id is in the other job's numbering, so a tie there needs two
 * concurrent connections whose sides coincide by number; a tie could
 * only cost rounds (the two agreements taking turns), never a shared
 * slot.
 */
#include "mpi/lc_mpi_bridge.h"
#include "coll/lc_coll.h"
#include "mpi/lc_mpi.h"
#include "pt2pt/lc_pt2pt.h"

#include <stdlib.h>
#include <string.h>

/* size, flag, side (2 words), then the group's first-round AND */
#define LC_HDR_OFFER 4
#define LC_HDR_WORDS (LC_HDR_OFFER + LC_CTX_WORDS + 1)
#define LC_HDR_FAILED UINT64_MAX

/* The leader's half of lc_bridge_open: swap the headers and member lists
 * with the remote leader; rhdr and b->rworld filled on success. */
static int lc_bridge_swap(lc_bridge_t *b, const uint64_t *hdr, uint64_t *rhdr, const int *rmap, bool by_rank)
{
    lc_comm_t *lc = b->lc, *bridge = b->bridge;
    int *iota = NULL;
    lc_request_t *s[2] = { NULL, NULL };
    int rc = lc_pt2pt_isend(hdr, sizeof(uint64_t) * LC_HDR_WORDS, b->rleader, b->tag, bridge, b->ctx_kind,
                            LC_MODE_STANDARD, &s[0]);
    const int *members = lc->world_ranks;
    if (rmap) {
        iota = malloc(sizeof(int) * (size_t)lc->size);
        if (!iota) rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a group of %d", lc->size);
        for (int i = 0; iota && i < lc->size; i++) {
            iota[i] = i;
            if (!by_rank) continue;
            iota[i] = -1; /* lc's members are members of bridge's local group */
            for (int k = 0; k < bridge->size && iota[i] < 0; k++)
                if (bridge->world_ranks[k] == lc->world_ranks[i]) iota[i] = k;
        }
        members = iota;
    }
    if (rc == MPI_SUCCESS)
        rc = lc_pt2pt_isend(members, sizeof(int) * (size_t)lc->size, b->rleader, b->tag, bridge, b->ctx_kind,
                            LC_MODE_STANDARD, &s[1]);
    if (rc == MPI_SUCCESS)
        rc = lc_pt2pt_recv(rhdr, sizeof(uint64_t) * LC_HDR_WORDS, b->rleader, b->tag, bridge, b->ctx_kind,
                           MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && rhdr[0] < (uint64_t)lc_world.universe_size + 1) {
        b->rworld = malloc(sizeof(int) * (size_t)(rhdr[0] + 1));
        if (!b->rworld) rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a remote group of %d", (int)rhdr[0]);
    } else if (rc == MPI_SUCCESS) {
        rc = lc_error(MPI_ERR_INTERN, "the remote leader sent a group of %llu processes", (unsigned long long)rhdr[0]);
    }
    if (rc == MPI_SUCCESS)
        rc = lc_pt2pt_recv(b->rworld, sizeof(int) * (size_t)rhdr[0], b->rleader, b->tag, bridge, b->ctx_kind,
                           MPI_STATUS_IGNORE);
    for (int i = 0; i < 2; i++) {
        int wrc = s[i] ? lc_pt2pt_wait_release(s[i], MPI_STATUS_IGNORE) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS) rc = wrc;
    }
    free(iota);
    return rc;
}

/* The agreement's key from the two sides (see the top). */
static void lc_bridge_key(const uint64_t *mine, const uint64_t *theirs, lc_ctx_key_t *key)
{
    bool mine_lo = mine[0] != theirs[0] ? mine[0] < theirs[0] : mine[1] < theirs[1];
    const uint64_t *lo = mine_lo ? mine : theirs, *hi = mine_lo ? theirs : mine;
    key->w[0] = lo[0] >> 32 << 32; /* context id; low half 0: a bridge */
    key->w[1] = lo[0] << 32 | (lo[1] & 0xffffffffu);
    key->w[2] = hi[0];
    key->w[3] = hi[1];
}

int lc_bridge_open(lc_comm_t *lc, int lleader, lc_comm_t *bridge, int rleader, int ctx_kind, int tag, int flag, int lrc,
                   const int *rmap, int rmap_n, lc_bridge_t *b)
{
    /* Over an intercommunicator (dup, merge, split of one): member lists
     * travel as ranks of its local group, mapped by the receiver through
     * its remote group — ids differ between jobs, ranks do not. */
    bool by_rank = !rmap && bridge && bridge->remote_world && ctx_kind == LC_CTX_COLL;
    if (by_rank) {
        rmap = bridge->remote_world;
        rmap_n = bridge->peer_count;
    }
    memset(b, 0, sizeof(*b));
    b->lc = lc;
    b->bridge = bridge;
    b->lleader = lleader;
    b->rleader = rleader;
    b->ctx_kind = ctx_kind;
    b->tag = tag;
    /* this side of the key: every member of lc computes the same */
    uint64_t side[2] = { (uint64_t)lc->ctx << 32 | lc->ctx_seq++, (uint64_t)(uint32_t)lc->world_ranks[0] };
    uint64_t hdr[LC_HDR_WORDS] = { (uint64_t)lc->size, (uint64_t)(uint32_t)flag, side[0], side[1] };
    uint64_t rhdr[LC_HDR_WORDS], offer[LC_CTX_WORDS + 1];
    /* The first round (see the top): its key is set below, before the
     * round ends. */
    lc_ctx_key_t unset = { { 0, 0, 0, 0 } };
    lc_ctx_agreement_begin_key(&b->agreement, &unset, 0);
    lc_ctx_agreement_offer(&b->agreement, offer);
    int arc = lc_coll_allreduce(offer, hdr + LC_HDR_OFFER, LC_CTX_WORDS + 1, MPI_UINT64_T, MPI_BAND, lc);
    int rc = MPI_SUCCESS;
    if (lc->rank == lleader) {
        rhdr[0] = LC_HDR_FAILED;
        if (lrc == MPI_SUCCESS) lrc = arc;
        if (lrc == MPI_SUCCESS) lrc = lc_bridge_swap(b, hdr, rhdr, rmap, by_rank);
        if (lrc != MPI_SUCCESS) rhdr[0] = LC_HDR_FAILED;
    }
    rc = lc_coll_bcast(rhdr, LC_HDR_WORDS, MPI_UINT64_T, lleader, lc);
    if (rc == MPI_SUCCESS && arc != MPI_SUCCESS && lc->rank != lleader) rc = arc;
    if (rc == MPI_SUCCESS && rhdr[0] == LC_HDR_FAILED)
        rc = lc->rank == lleader ? lrc
                                 : lc_error(MPI_ERR_OTHER,
                                            "the group's leader (rank %d) failed to reach the remote "
                                            "group's leader (see its error)",
                                            lleader);
    if (rc == MPI_SUCCESS && !b->rworld && !(b->rworld = malloc(sizeof(int) * (size_t)(rhdr[0] + 1))))
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory for a remote group of %d", (int)rhdr[0]);
    if (rc == MPI_SUCCESS) rc = lc_coll_bcast(b->rworld, (size_t)rhdr[0], MPI_INT, lleader, lc);
    for (int i = 0; rmap && rc == MPI_SUCCESS && i < (int)rhdr[0]; i++) {
        if (b->rworld[i] < 0 || b->rworld[i] >= rmap_n || (!by_rank && (int)rhdr[0] != rmap_n))
            rc = lc_error(MPI_ERR_INTERN, "the remote group does not match the table exchanged before");
        else
            b->rworld[i] = rmap[b->rworld[i]];
    }
    if (rc != MPI_SUCCESS) {
        lc_ctx_agreement_end(&b->agreement);
        free(b->rworld);
        b->rworld = NULL;
        return rc;
    }
    b->rsize = (int)rhdr[0];
    b->rflag = (int)(uint32_t)rhdr[1];
    lc_bridge_key(side, rhdr + 2, &b->key);
    b->agreement.key = b->key; /* not established yet: nobody compared it */
    memcpy(b->first[0], hdr + LC_HDR_OFFER, sizeof(b->first[0]));
    memcpy(b->first[1], rhdr + LC_HDR_OFFER, sizeof(b->first[1]));
    return MPI_SUCCESS;
}

void lc_bridge_abandon(lc_bridge_t *b)
{
    lc_ctx_agreement_end(&b->agreement);
}

/* One round's exchange: `mine` the AND of the local group's offers, then
 * `theirs` the remote group's (theirs[LC_CTX_WORDS + 1] set: the
 * leaders' swap failed). */
static int lc_bridge_round(const lc_bridge_t *b, const uint64_t *offer, uint64_t *mine, uint64_t *theirs)
{
    const size_t n = LC_CTX_WORDS + 1;
    int rc = lc_coll_allreduce(offer, mine, n, MPI_UINT64_T, MPI_BAND, b->lc);
    if (rc != MPI_SUCCESS) return rc;
    int lrc = MPI_SUCCESS;
    if (b->lc->rank == b->lleader) {
        lc_request_t *s = NULL;
        lrc = lc_pt2pt_isend(mine, sizeof(uint64_t) * n, b->rleader, b->tag, b->bridge, b->ctx_kind, LC_MODE_STANDARD,
                             &s);
        if (lrc == MPI_SUCCESS)
            lrc = lc_pt2pt_recv(theirs, sizeof(uint64_t) * n, b->rleader, b->tag, b->bridge, b->ctx_kind,
                                MPI_STATUS_IGNORE);
        int wrc = s ? lc_pt2pt_wait_release(s, MPI_STATUS_IGNORE) : MPI_SUCCESS;
        if (lrc == MPI_SUCCESS) lrc = wrc;
        theirs[n] = lrc != MPI_SUCCESS;
    }
    rc = lc_coll_bcast(theirs, n + 1, MPI_UINT64_T, b->lleader, b->lc);
    if (rc == MPI_SUCCESS && theirs[n])
        rc = b->lc->rank == b->lleader ? lrc
                                       : lc_error(MPI_ERR_OTHER,
                                                  "the group's leader (rank %d) failed to reach the "
                                                  "remote group's leader (see its error)",
                                                  b->lleader);
    return rc;
}

/* The lowest slot set in mask other than `except`; -1: none. */
static int lc_bridge_lowest(const uint64_t *mask, int except)
{
    for (int w = 0; w < LC_CTX_WORDS; w++) {
        uint64_t m = mask[w];
        if (except >= 0 && except / 64 == w) m &= ~(1ull << (except % 64));
        if (m) return w * 64 + __builtin_ctzll(m);
    }
    return -1;
}

int lc_bridge_agree(lc_bridge_t *b, bool local_too, int *islot_p, int *lslot_p)
{
    lc_ctx_agreement_t *a = &b->agreement;
    uint64_t offer[LC_CTX_WORDS + 1], next_mine[LC_CTX_WORDS + 1], next_theirs[LC_CTX_WORDS + 2];
    const uint64_t *mine = b->first[0], *theirs = b->first[1]; /* the round lc_bridge_open carried */
    int rc = MPI_SUCCESS;
    for (bool first = true;; first = false) {
        if (!first) {
            lc_ctx_agreement_offer(a, offer);
            rc = lc_bridge_round(b, offer, next_mine, next_theirs);
            mine = next_mine;
            theirs = next_theirs;
        }
        /* The chosen slots are free again too: the caller creates the
         * communicators (which take them) before it waits on anything. */
        lc_ctx_agreement_round_end(a);
        if (rc != MPI_SUCCESS) break;
        uint64_t both[LC_CTX_WORDS];
        for (int w = 0; w < LC_CTX_WORDS; w++) both[w] = mine[w] & theirs[w];
        int islot = lc_bridge_lowest(both, -1), lslot = 0, rslot = 0;
        /* The remote group's hidden slot too (rslot): both groups retry
         * alike only if each looks at both decisions. */
        if (local_too && islot >= 0) {
            lslot = lc_bridge_lowest(mine, islot);
            rslot = lc_bridge_lowest(theirs, islot);
        }
        if (islot >= 0 && lslot >= 0 && rslot >= 0) {
            *islot_p = islot;
            if (local_too) *lslot_p = lslot;
            break;
        }
        if (mine[LC_CTX_WORDS] && theirs[LC_CTX_WORDS]) {
            rc = lc_error(MPI_ERR_INTERN,
                          "out of communicator context ids: no %s free on every member of both "
                          "groups (2048 exist per process); free communicators you no longer need",
                          local_too ? "pair of them is" : "one is");
            break;
        }
        /* A window missed the other members', or an owner elsewhere: again. */
    }
    lc_ctx_agreement_end(a);
    return rc;
}
