/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_comm_idup.c — MPI_Comm_idup and MPI_Comm_idup_with_info: the
 * context-id agreement of MPI_Comm_dup as a schedule.
 *
 * A blocking duplicate ANDs every member's free-slot mask (an allreduce)
 * and takes the lowest common slot.  Nonblocking, other communicators
 * may be created between the start and the end of the agreement, so the
 * slots a rank offers must not be taken meanwhile: at the start each
 * rank holds (marks taken) the 64 lowest slots free on it and offers only
 * those; the schedule is an allreduce (BAND) of the offers, then a local
 * step that frees the holds, takes the lowest slot of the result and
 * makes the communicator (group, topology, hints, attributes through
 * their copy callbacks) and writes the caller's handle.  Every rank
 * computes the same slot from the same result.  When members' windows do
 * not meet (their creations diverged by more than 64 slots) the request
 * fails with MPI_ERR_INTERN rather than hang.
 */
#include "coll/lc_sched.h"
#include "mpi/lc_mpi_attr.h"
#include "mpi/lc_mpi_comm.h"
#include "mpi/lc_mpi_info.h"
#include "mpi/lc_mpi_request.h"

#include <string.h>

#define LC_IDUP_WINDOW 64

typedef struct lc_idup {
    lc_comm_t *parent;
    lc_info_t *hints; /* the new communicator's, until it takes them */
    MPI_Comm *newcomm;
    uint64_t offer[LC_CTX_WORDS];
    uint64_t agreed[LC_CTX_WORDS];
} lc_idup_t;

/* Hold (taken = 1) or free the slots of `mask`. */
static void lc_idup_hold(const uint64_t *mask, int taken)
{
    for (int w = 0; w < LC_CTX_WORDS; w++)
        for (uint64_t m = mask[w]; m; m &= m - 1) lc_comm_ctx_hold(w * 64 + __builtin_ctzll(m), taken);
}

/* The last step of the schedule (from the progress engine). */
static int lc_idup_finish(void *arg)
{
    lc_idup_t *d = arg;
    lc_idup_hold(d->offer, 0);
    int slot = -1;
    for (int w = 0; w < LC_CTX_WORDS && slot < 0; w++)
        if (d->agreed[w]) slot = w * 64 + __builtin_ctzll(d->agreed[w]);
    if (slot < 0) {
        if (d->hints) lc_info_free(d->hints);
        d->hints = NULL;
        return lc_error(MPI_ERR_INTERN, "MPI_Comm_idup: the members offered no common context id (their "
                                        "communicator creations diverged); use MPI_Comm_dup");
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

/* The offer: the LC_IDUP_WINDOW lowest slots free here. */
static void lc_idup_offer(uint64_t *offer)
{
    const uint64_t *free_mask = lc_comm_ctx_free_mask();
    int left = LC_IDUP_WINDOW;
    memset(offer, 0, sizeof(uint64_t) * LC_CTX_WORDS);
    for (int w = 0; w < LC_CTX_WORDS && left; w++)
        for (uint64_t m = free_mask[w]; m && left; m &= m - 1, left--) offer[w] |= m & -m;
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
    lc_idup_offer(d->offer);
    lc_coll_capture = s;
    rc = lc_coll_allreduce(d->offer, d->agreed, LC_CTX_WORDS, MPI_UINT64_T, MPI_BAND, c);
    lc_coll_capture = NULL;
    if (rc == MPI_SUCCESS) rc = lc_sched_fence(s);
    if (rc == MPI_SUCCESS) rc = lc_sched_call(s, lc_idup_finish, d);
    if (rc == MPI_SUCCESS && !(req = lc_request_alloc(LC_REQ_COLL))) rc = lc_error(MPI_ERR_NO_MEM, "out of requests");
    if (rc != MPI_SUCCESS) goto err_info;
    lc_idup_hold(d->offer, 1);
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
