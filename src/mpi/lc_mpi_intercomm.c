/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_intercomm.c — intercommunicators (MPI 4.1 §7.6): creation
 * (MPI_Intercomm_create, MPI_Intercomm_create_from_groups), duplication,
 * MPI_Intercomm_merge, MPI_Comm_split / MPI_Comm_create on them, and the
 * remote-group queries.
 *
 * Every creation is one "bridge" (lc_mpi_bridge.c): the two groups'
 * leaders swap their group's size and member list and broadcast what they
 * got, and both groups agree on the new communicator's context slots
 * over their local intracommunicators and the leaders (lc_mpi_ctx.c's
 * agreement, as every other creation; its first round travels with the
 * leaders' swap): one free on every member of both groups, and for an
 * intercommunicator one free on the local group for its hidden local
 * intracommunicator.
 */
#include "mpi/lc_mpi_bridge.h"
#include "mpi/lc_mpi_comm.h"
#include "coll/lc_coll.h"
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_errhandler.h"
#include "mpi/lc_mpi_group.h"
#include "mpi/lc_mpi_info.h"
#include "mpi/lc_mpi_xconnect.h"
#include "pt2pt/lc_pt2pt.h"

#include <stdlib.h>
#include <string.h>

/* Tags of the bridges run over an intercommunicator's collective context
 * (blocking, so one tag per kind is enough, as in lc_coll_impl.h). */
enum {
    LC_TAG_INTER_DUP = 0x04000001,
    LC_TAG_INTER_MERGE,
    LC_TAG_INTER_SPLIT_COLORS,
    LC_TAG_INTER_SPLIT,
};
/* MPI_Intercomm_create_from_groups: over MPI_COMM_WORLD's collective
 * context, this bit | the string tag's hash. */
#define LC_TAG_INTER_FROM_GROUPS 0x08000000

static int lc_check_inter(const lc_comm_t *c)
{
    if (c->remote_world) return MPI_SUCCESS;
    return lc_error(MPI_ERR_COMM, "the communicator is an intracommunicator: an intercommunicator is required");
}

static int lc_bridge(lc_comm_t *lc, int lleader, lc_comm_t *bridge, int rleader, int ctx_kind, int tag, int flag,
                     int lrc, lc_bridge_t *b)
{
    return lc_bridge_open(lc, lleader, bridge, rleader, ctx_kind, tag, flag, lrc, NULL, 0, b);
}

/* The groups of an intercommunicator must be disjoint (MPI 4.1 §7.6.2);
 * every member of both checks the same lists, so all agree. */
static int lc_check_disjoint(const int *a, int na, const int *b, int nb)
{
    char *in_a = calloc((size_t)lc_world.universe_size, 1); /* universe ids */
    if (!in_a) return lc_error(MPI_ERR_NO_MEM, "out of memory checking groups");
    for (int i = 0; i < na; i++) in_a[a[i]] = 1;
    int rc = MPI_SUCCESS;
    for (int j = 0; j < nb && rc == MPI_SUCCESS; j++)
        if (in_a[b[j]])
            rc = lc_error(MPI_ERR_COMM, "world rank %d is in both the local and the remote group: the groups of an "
                                        "intercommunicator must be disjoint",
                          b[j]);
    free(in_a);
    return rc;
}

/* The intercommunicator of lc's group and the bridged remote group, with
 * errh's error handler: its two context slots agreed over both groups. */
static int lc_inter_make(lc_comm_t *lc, lc_bridge_t *b, MPI_Errhandler errh, lc_comm_t **out_p)
{
    int rc = lc_check_disjoint(lc->world_ranks, lc->size, b->rworld, b->rsize);
    int islot = -1, lslot = -1;
    /* every member of both groups checked the same lists: all agree or none */
    if (rc == MPI_SUCCESS)
        rc = lc_bridge_agree(b, true, &islot, &lslot);
    else
        lc_bridge_abandon(b);
    if (rc != MPI_SUCCESS) return rc;
    lc_comm_t *local = lc_comm_create(lslot, lc->rank, lc->size, lc->world_ranks, MPI_COMM_NULL);
    if (!local) return lc_error(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    local->errhandler = MPI_ERRORS_RETURN; /* internal: errors come back as codes */
    local->session = lc->session;
    lc_comm_t *n = lc_comm_create_inter(islot, lc->rank, lc->size, lc->world_ranks, b->rsize, b->rworld, local);
    if (!n) return lc_error(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator");
    n->session = lc->session; /* the local group's session, if any */
    lc_errhandler_retain(errh);
    n->errhandler = errh;
    *out_p = n;
    return MPI_SUCCESS;
}

int lc_inter_dup(lc_comm_t *c, lc_comm_t **out_p)
{
    lc_bridge_t b;
    int rc = lc_bridge(c->local, 0, c, 0, LC_CTX_COLL, LC_TAG_INTER_DUP, 0, MPI_SUCCESS, &b);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_inter_make(c->local, &b, c->errhandler, out_p);
    free(b.rworld);
    return rc;
}

int lc_inter_connect_map(lc_comm_t *lc, int lleader, lc_comm_t *bridge, int rleader, int tag, const int *rmap,
                         int rmap_n, lc_comm_t **out_p)
{
    lc_bridge_t b;
    int rc = lc_bridge_open(lc, lleader, bridge, rleader, LC_CTX_COLL, tag, 0, MPI_SUCCESS, rmap, rmap_n, &b);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_inter_make(lc, &b, lc->errhandler, out_p);
    free(b.rworld);
    return rc;
}

int lc_inter_connect(lc_comm_t *lc, int lleader, int rworld, int tag, int lrc, lc_comm_t **out_p)
{
    lc_bridge_t b;
    int rc = lc_bridge(lc, lleader, lc_comm_builtin[0], rworld, LC_CTX_COLL, tag, 0, lrc, &b);
    if (rc != MPI_SUCCESS) return rc;
    rc = lc_inter_make(lc, &b, lc->errhandler, out_p);
    free(b.rworld);
    return rc;
}

LC_API int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                                 MPI_Comm *newintercomm)
{
    lc_comm_t *c = NULL, *p = NULL, *n = NULL;
    lc_bridge_t b;
    int rc;
    LC_TRY(lc_check_comm(local_comm, &c));
    LC_TRY(lc_check_intra(c, "MPI_Intercomm_create's local_comm"));
    LC_TRY(lc_check_ptr(newintercomm, "newintercomm"));
    if (local_leader < 0 || local_leader >= c->size)
        LC_TRY(lc_error(MPI_ERR_RANK, "local_leader %d is out of range for local_comm of size %d", local_leader,
                        c->size));
    /* peer_comm, remote_leader and tag are significant at the leader only. */
    int lrc = MPI_SUCCESS;
    if (c->rank == local_leader) {
        lrc = lc_check_comm(peer_comm, &p);
        if (lrc == MPI_SUCCESS) lrc = lc_check_tag(tag, false);
        if (lrc == MPI_SUCCESS && (remote_leader < 0 || remote_leader >= p->peer_count))
            lrc = lc_error(MPI_ERR_RANK, "remote_leader %d is out of range for peer_comm of size %d", remote_leader,
                           p->peer_count);
        if (lrc == MPI_SUCCESS && p->peers[remote_leader] == &lc_world.peers[lc_world.rank])
            lrc = lc_error(MPI_ERR_RANK, "remote_leader %d of peer_comm is this process (the local leader): the "
                                         "two groups must be disjoint",
                           remote_leader);
    }
    LC_TRY(lc_bridge(c, local_leader, p, remote_leader, LC_CTX_PT2PT, tag, 0, lrc, &b));
    rc = lc_inter_make(c, &b, c->errhandler, &n);
    free(b.rworld);
    LC_TRY(rc);
    *newintercomm = n->handle;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Intercomm_create", rc);
}
LC_MPI_ALIAS(Intercomm_create);

/* FNV-1a of the string tag (the same fold lc_mpi_session.c uses). */
static int lc_inter_tag_hash(const char *tag)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *s = (const unsigned char *)tag; *s; s++) h = (h ^ *s) * 16777619u;
    return (int)(h & 0x07ffffff);
}

LC_API int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                             int remote_leader, const char *stringtag, MPI_Info info,
                                             MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    lc_group_t *lg, *rg;
    lc_info_t *hints;
    lc_comm_t *lc = NULL, *n = NULL;
    MPI_Comm lh = MPI_COMM_NULL;
    lc_bridge_t b;
    int rc;
    LC_TRY(lc_check_group(local_group, &lg));
    LC_TRY(lc_check_group(remote_group, &rg));
    LC_TRY(lc_check_ptr(stringtag, "stringtag"));
    if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        LC_TRY(lc_error(MPI_ERR_ARG, "stringtag is longer than MPI_MAX_STRINGTAG_LEN - 1 (%d)",
                        MPI_MAX_STRINGTAG_LEN - 1));
    LC_TRY(lc_check_info_or_null(info, &hints));
    LC_TRY(lc_check_comm_errhandler(errhandler));
    LC_TRY(lc_check_ptr(newintercomm, "newintercomm"));
    if (lg->rank == MPI_UNDEFINED)
        LC_TRY(lc_error(MPI_ERR_GROUP, "this process is not a member of local_group"));
    if (local_leader < 0 || local_leader >= lg->size)
        LC_TRY(lc_error(MPI_ERR_RANK, "local_leader %d is out of range for local_group of size %d", local_leader,
                        lg->size));
    if (remote_leader < 0 || remote_leader >= rg->size)
        LC_TRY(lc_error(MPI_ERR_RANK, "remote_leader %d is out of range for remote_group of size %d", remote_leader,
                        rg->size));
    LC_TRY(lc_check_disjoint(lg->world, lg->size, rg->world, rg->size));
    /* The local group's intracommunicator (collective over it alone), then
     * the leaders meet in MPI_COMM_WORLD, whose ranks the groups name. */
    LC_TRY(PMPI_Comm_create_from_group(local_group, stringtag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &lh));
    lc = lc_comm_lookup(lh);
    rc = lc_bridge(lc, local_leader, lc_comm_builtin[0], rg->world[remote_leader], LC_CTX_COLL,
                   LC_TAG_INTER_FROM_GROUPS | lc_inter_tag_hash(stringtag), 0, MPI_SUCCESS, &b);
    if (rc == MPI_SUCCESS) {
        rc = lc_inter_make(lc, &b, errhandler, &n);
        free(b.rworld);
    }
    lc_comm_free_handle(lc);
    LC_TRY(rc);
    if (hints && (rc = lc_info_dup(hints, (lc_info_t **)&n->info)) != MPI_SUCCESS) {
        lc_comm_free_handle(n);
        LC_TRY(rc);
    }
    *newintercomm = n->handle;
    return MPI_SUCCESS;
err:
    /* No communicator yet: the handler given, as MPI 4.1 §11.3 asks. */
    return lc_mpi_error_handler(errhandler == MPI_ERRORS_RETURN ? errhandler : MPI_ERRORS_ARE_FATAL,
                                (int)MPI_COMM_NULL, "communicator", "MPI_Intercomm_create_from_groups", rc);
}
LC_MPI_ALIAS(Intercomm_create_from_groups);

/* The merged group: the group that passed high = false first; when both
 * passed the same, the group whose first member has the lower world rank
 * (any order both sides agree on is allowed). */
LC_API int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    lc_comm_t *c = NULL, *n = NULL;
    lc_bridge_t b;
    int *world = NULL;
    int rc;
    LC_TRY(lc_check_comm(intercomm, &c));
    LC_TRY(lc_check_inter(c));
    LC_TRY(lc_check_ptr(newintracomm, "newintracomm"));
    LC_TRY(lc_bridge(c->local, 0, c, 0, LC_CTX_COLL, LC_TAG_INTER_MERGE, high != 0, MPI_SUCCESS, &b));
    int mine = high != 0, first = mine != b.rflag ? !mine : lc_x_before(c->world_ranks[0], b.rworld[0]);
    int slot = -1, total = c->size + b.rsize;
    world = malloc(sizeof(int) * (size_t)total);
    if (!world) rc = lc_error(MPI_ERR_NO_MEM, "out of memory merging an intercommunicator");
    /* every member of both groups takes part, even one out of memory */
    int arc = lc_bridge_agree(&b, false, &slot, NULL);
    if (rc == MPI_SUCCESS) rc = arc;
    if (rc == MPI_SUCCESS) {
        int *lo = first ? world : world + b.rsize, *hi = first ? world + c->size : world;
        memcpy(lo, c->world_ranks, sizeof(int) * (size_t)c->size);
        memcpy(hi, b.rworld, sizeof(int) * (size_t)b.rsize);
        rc = lc_mpi_comm_make(c, slot, first ? c->rank : b.rsize + c->rank, total, world, &n);
    }
    free(world);
    free(b.rworld);
    LC_TRY(rc);
    *newintracomm = n->handle;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Intercomm_merge", rc);
}
LC_MPI_ALIAS(Intercomm_merge);

/* ---- split and create on an intercommunicator ---------------------------- */

int lc_inter_split(lc_comm_t *c, int color, int key, lc_comm_t **out_p)
{
    lc_comm_t *L = c->local, *nl = NULL;
    int mine[2] = { color, key }, rsize = c->peer_count;
    int *lpairs = malloc(sizeof(int) * 2 * (size_t)L->size), *rpairs = malloc(sizeof(int) * 2 * (size_t)rsize);
    int rc = lpairs && rpairs ? MPI_SUCCESS : lc_error(MPI_ERR_NO_MEM, "out of memory splitting an intercommunicator");
    *out_p = NULL;
    /* Every process learns every (color, key) of both groups. */
    if (rc == MPI_SUCCESS) rc = lc_coll_allgather(mine, 2, MPI_INT, lpairs, 2, MPI_INT, L);
    if (rc == MPI_SUCCESS && L->rank == 0) {
        lc_request_t *s;
        rc = lc_pt2pt_isend(lpairs, sizeof(int) * 2 * (size_t)L->size, 0, LC_TAG_INTER_SPLIT_COLORS, c, LC_CTX_COLL,
                            LC_MODE_STANDARD, &s);
        if (rc == MPI_SUCCESS) {
            rc = lc_pt2pt_recv(rpairs, sizeof(int) * 2 * (size_t)rsize, 0, LC_TAG_INTER_SPLIT_COLORS, c, LC_CTX_COLL,
                               MPI_STATUS_IGNORE);
            int wrc = lc_pt2pt_wait_release(s, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) rc = wrc;
        }
    }
    if (rc == MPI_SUCCESS) rc = lc_coll_bcast(rpairs, 2 * (size_t)rsize, MPI_INT, 0, L);
    /* The local part (collective over the local group). */
    if (rc == MPI_SUCCESS) rc = lc_mpi_comm_split_intra(L, color, key, &nl);
    if (rc == MPI_SUCCESS && nl) {
        /* The remote leader: the remote process of this color that its
         * split ranks first (lowest key, then lowest rank). */
        int rl = -1;
        for (int r = 0; r < rsize; r++)
            if (rpairs[2 * r] == color && (rl < 0 || rpairs[2 * r + 1] < rpairs[2 * rl + 1])) rl = r;
        if (rl >= 0) {
            lc_bridge_t b;
            rc = lc_bridge(nl, 0, c, rl, LC_CTX_COLL, LC_TAG_INTER_SPLIT, 0, MPI_SUCCESS, &b);
            if (rc == MPI_SUCCESS) {
                rc = lc_inter_make(nl, &b, c->errhandler, out_p);
                free(b.rworld);
            }
        }
        lc_comm_free_handle(nl);
    }
    free(lpairs);
    free(rpairs);
    return rc;
}

/* ---- queries -------------------------------------------------------------- */

LC_API int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_inter(c));
    LC_TRY(lc_check_ptr(size, "size"));
    *size = c->peer_count;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_remote_size", rc);
}
LC_MPI_ALIAS(Comm_remote_size);

LC_API int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    lc_comm_t *c = NULL;
    lc_group_t *g;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_inter(c));
    LC_TRY(lc_check_ptr(group, "group"));
    LC_TRY(lc_group_new(c->peer_count, c->remote_world, &g));
    LC_TRY(lc_group_publish(g, group));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_remote_group", rc);
}
LC_MPI_ALIAS(Comm_remote_group);
