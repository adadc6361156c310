/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_comm_idup.c — MPI_Comm_idup and MPI_Comm_idup_with_info: the
 * context-id agreement of MPI_Comm_dup as a schedule.
 *
 * The agreement is lc_mpi_ctx.c's (it says how each round's offer is
 * made and held and why the rounds end, also with other idups and
 * blocking creations in progress on any parents in any order): the
 * schedule is a round — an allreduce (BAND) of the offers — then a local
 * step that ends the round, takes the lowest slot of the result and
 * makes the communicator (group, topology, hints, attributes through
 * their copy callbacks) and writes the caller's handle.  Every rank
 * computes the same slot from the same result; when the result is empty
 * every member appends the next round to the schedule alike, and when
 * every member offered all it had (the last word) the request fails
 * (MPI_ERR_INTERN), as MPI_Comm_dup would.
 *
 * An intercommunicator needs two slots: one free on every member of both
 * groups (the intercommunicator's) and one free on every member of the
 * local group (its hidden local intracommunicator's).  Each group ANDs
 * its offers over the local intracommunicator, the leaders (local rank 0)
 * swap their group's result, each leader broadcasts the other group's in
 * its group; the last step takes the lowest slot of both results and the
 * lowest other slot of its own group's.  Both groups see the same pair of
 * results, so both decide alike whether to retry.  A failed schedule
 * ends the agreement from its free hook.
 */
#include "coll/lc_sched.h"
#include "mpi/lc_mpi_attr.h"
#include "mpi/lc_mpi_comm.h"
#include "mpi/lc_mpi_errhandler.h"
#include "mpi/lc_mpi_info.h"
#include "mpi/lc_mpi_request.h"

#include <string.h>

typedef struct lc_idup {
    lc_sched_t *sched;
    lc_ctx_agreement_t agreement;
    lc_comm_t *parent;
    lc_info_t *hints; /* the new communicator's, until it takes them */
    MPI_Comm *newcomm;
    /* [LC_CTX_WORDS]: "every slot free here was offered" (lc_mpi_ctx.c) */
    uint64_t offer[LC_CTX_WORDS + 1];
    uint64_t agreed[LC_CTX_WORDS + 1];
    uint64_t remote[LC_CTX_WORDS + 1]; /* intercommunicator: the remote group's `agreed` */
} lc_idup_t;

static int lc_idup_round(lc_idup_t *d);

/* The schedule's free hook: a schedule that failed before its last step
 * leaves the agreement registered and its offer held. */
static void lc_idup_drop(void *arg)
{
    lc_idup_t *d = arg;
    lc_ctx_agreement_end(&d->agreement);
}

static int lc_idup_fail(lc_idup_t *d, int rc)
{
    if (d->hints) lc_info_free(d->hints);
    d->hints = NULL;
    return rc;
}

/* The lowest slot of mask other than `except` (-1: none). */
static int lc_idup_lowest(const uint64_t *mask, int except)
{
    for (int w = 0; w < LC_CTX_WORDS; w++) {
        uint64_t m = mask[w];
        if (except >= 0 && except / 64 == w) m &= ~(1ull << (except % 64));
        if (m) return w * 64 + __builtin_ctzll(m);
    }
    return -1;
}

/* The last step on an intercommunicator. */
static int lc_idup_finish_inter(lc_idup_t *d)
{
    uint64_t both[LC_CTX_WORDS];
    for (int w = 0; w < LC_CTX_WORDS; w++) both[w] = d->agreed[w] & d->remote[w];
    int islot = lc_idup_lowest(both, -1);
    int lslot = islot < 0 ? -1 : lc_idup_lowest(d->agreed, islot);
    int rslot = islot < 0 ? -1 : lc_idup_lowest(d->remote, islot); /* the remote group's decision */
    bool all = d->agreed[LC_CTX_WORDS] && d->remote[LC_CTX_WORDS]; /* every member offered all */
    if ((lslot < 0 || rslot < 0) && !all) return lc_idup_round(d);
    lc_ctx_agreement_end(&d->agreement);
    if (lslot < 0 || rslot < 0)
        return lc_idup_fail(d, lc_error(MPI_ERR_INTERN, "MPI_Comm_idup: no pair of communicator context ids is "
                                                        "free on every member of an intercommunicator's groups "
                                                        "(2048 exist per process); free communicators you no "
                                                        "longer need"));
    lc_comm_t *p = d->parent;
    lc_comm_t *local = lc_comm_create(lslot, p->rank, p->size, p->world_ranks, MPI_COMM_NULL);
    if (!local) return lc_idup_fail(d, lc_error(MPI_ERR_NO_MEM, "out of memory creating a communicator"));
    local->errhandler = MPI_ERRORS_RETURN; /* internal: errors come back as codes */
    lc_comm_t *n = lc_comm_create_inter(islot, p->rank, p->size, p->world_ranks, p->peer_count, p->remote_world, local);
    if (!n) return lc_idup_fail(d, lc_error(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator"));
    lc_errhandler_retain(p->errhandler);
    n->errhandler = p->errhandler;
    n->info = d->hints;
    d->hints = NULL;
    int rc = lc_attr_copy_all(LC_ATTR_COMM, p->handle, &p->attrs, n->handle, &n->attrs);
    if (rc != MPI_SUCCESS) {
        lc_comm_free_handle(n);
        return rc;
    }
    *d->newcomm = n->handle;
    return MPI_SUCCESS;
}

/* The last step of the schedule (from the progress engine). */
static int lc_idup_finish(void *arg)
{
    lc_idup_t *d = arg;
    /* The chosen slots are free again too: taken below, before any wait. */
    lc_ctx_agreement_round_end(&d->agreement);
    if (d->parent->remote_world) return lc_idup_finish_inter(d);
    int slot = lc_ctx_agreement_lowest(d->agreed);
    if (slot < 0 && !d->agreed[LC_CTX_WORDS]) return lc_idup_round(d);
    lc_ctx_agreement_end(&d->agreement);
    if (slot < 0) {
        if (d->hints) lc_info_free(d->hints);
        d->hints = NULL;
        return lc_error(MPI_ERR_INTERN, "MPI_Comm_idup: no communicator context id is free on every member "
                                        "(2048 exist per process); free communicators you no longer need");
    }
    lc_comm_t *p = d->parent, *n;
    int rc = lc_mpi_comm_make(p, slot, p->rank, p->size, p->world_ranks, &n);
    if (rc != MPI_SUCCESS) {
        if (d->hints) lc_info_free(d->hints);
        d->hints = NULL;
        return rc;
    }
    if (p->cart && !(n->cart = lc_cart_new(p->cart->ndims, p->cart->dims, p->cart->periods)))
        rc = lc_error(MPI_ERR_NO_MEM, "out of memory copying a topology");
    n->info = d->hints;
    d->hints = NULL;
    if (rc == MPI_SUCCESS) rc = lc_attr_copy_all(LC_ATTR_COMM, p->handle, &p->attrs, n->handle, &n->attrs);
    if (rc != MPI_SUCCESS) {
        lc_comm_free_handle(n);
        return rc;
    }
    *d->newcomm = n->handle;
    return MPI_SUCCESS;
}

/* Add one round to the schedule: offer (held from now on), allreduce
 * (BAND), then lc_idup_finish.  From lc_comm_idup, and from
 * lc_idup_finish itself to retry. */
static int lc_idup_round(lc_idup_t *d)
{
    lc_ctx_agreement_offer(&d->agreement, d->offer);
    lc_sched_t *outer = lc_coll_capture, *s = d->sched; /* none expected; kept in case */
    lc_comm_t *p = d->parent, *group = p->remote_world ? p->local : p;
    /* An intercommunicator's schedule addresses its local group's steps
     * to the hidden local intracommunicator (lc_sched.h, peer_comm). */
    if (group != p) s->peer_comm = group;
    lc_coll_capture = s;
    int rc = lc_coll_allreduce(d->offer, d->agreed, LC_CTX_WORDS + 1, MPI_UINT64_T, MPI_BAND, group);
    lc_coll_capture = NULL;
    if (rc == MPI_SUCCESS) rc = lc_sched_fence(s);
    if (rc == MPI_SUCCESS && group != p) {
        /* leaders swap their group's result; each broadcasts the other's */
        s->peer_comm = NULL;
        if (p->rank == 0) {
            rc = lc_sched_recv(s, d->remote, sizeof(d->remote), 0);
            if (rc == MPI_SUCCESS) rc = lc_sched_send(s, d->agreed, sizeof(d->agreed), 0);
            if (rc == MPI_SUCCESS) rc = lc_sched_fence(s);
        }
        s->peer_comm = group;
        lc_coll_capture = s;
        if (rc == MPI_SUCCESS) rc = lc_coll_bcast(d->remote, LC_CTX_WORDS + 1, MPI_UINT64_T, 0, group);
        lc_coll_capture = NULL;
        if (rc == MPI_SUCCESS) rc = lc_sched_fence(s);
    }
    s->peer_comm = NULL;
    lc_coll_capture = outer;
    if (rc == MPI_SUCCESS) rc = lc_sched_fence(d->sched);
    if (rc == MPI_SUCCESS) rc = lc_sched_call(d->sched, lc_idup_finish, d);
    return rc;
}

static int lc_comm_idup(lc_comm_t *c, const lc_info_t *info, MPI_Comm *newcomm, MPI_Request *request)
{
    int rc = MPI_SUCCESS;
    lc_sched_t *s = lc_sched_new(c);
    if (!s) return lc_error(MPI_ERR_NO_MEM, "out of memory for the schedule of MPI_Comm_idup");
    lc_idup_t *d = lc_sched_alloc(s, sizeof(*d), &rc);
    lc_request_t *req = NULL;
    if (!d) goto err_sched;
    memset(d, 0, sizeof(*d));
    d->parent = c;
    d->newcomm = newcomm;
    if (info && (rc = lc_info_dup(info, &d->hints)) != MPI_SUCCESS) goto err_sched;
    d->sched = s;
    /* begin before the hook: the hook ends it whenever the schedule goes */
    lc_ctx_agreement_begin(&d->agreement, c, -1, c->remote_world ? 0 : c->size);
    if ((rc = lc_sched_on_free(s, lc_idup_drop, d)) != MPI_SUCCESS) {
        lc_ctx_agreement_end(&d->agreement);
        goto err_info;
    }
    if (rc == MPI_SUCCESS && !(req = lc_request_alloc(LC_REQ_COLL))) rc = lc_error(MPI_ERR_NO_MEM, "out of requests");
    if (rc == MPI_SUCCESS && (rc = lc_idup_round(d)) != MPI_SUCCESS) lc_request_release(req);
    if (rc != MPI_SUCCESS) goto err_info;
    lc_sched_take_tag(s);
    req->comm = c;
    req->sched = s;
    s->refs = 1;
    *newcomm = MPI_COMM_NULL; /* the handle is written when the request completes */
    lc_mpi_request_out(req, request);
    lc_sched_start(s, req);
    return MPI_SUCCESS;
err_info:
    if (d->hints) lc_info_free(d->hints);
err_sched:
    lc_sched_free(s);
    return rc;
}

LC_API int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    lc_comm_t *c = NULL;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    LC_TRY(lc_check_request_out(request));
    LC_TRY(lc_comm_idup(c, c->info, newcomm, request)); /* MPI 4: the hints are duplicated too */
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_idup", rc);
}
LC_MPI_ALIAS(Comm_idup);

LC_API int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    lc_comm_t *c = NULL;
    lc_info_t *i;
    int rc;
    LC_TRY(lc_check_comm(comm, &c));
    LC_TRY(lc_check_info_or_null(info, &i));
    LC_TRY(lc_check_ptr(newcomm, "newcomm"));
    LC_TRY(lc_check_request_out(request));
    LC_TRY(lc_comm_idup(c, i, newcomm, request));
    return MPI_SUCCESS;
err:
    return lc_mpi_error(c, "MPI_Comm_idup_with_info", rc);
}
LC_MPI_ALIAS(Comm_idup_with_info);
