/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_ctx.c — agreeing on the context slot of a new communicator, also
 * when several threads of a process create communicators at once.
 *
 * The members AND their masks of free slots and take the lowest common
 * one.  Under MPI_THREAD_MULTIPLE the reduction's waits leave the critical
 * section, so two agreements of one process (on different parents) can
 * overlap; were both to offer the same free slots they could both choose
 * the same one.  So, as MPICH does, one agreement at a time per process
 * owns the mask: it offers the free slots and holds them (taken, so no
 * other creation, MPI_Comm_idup's included, can offer them) until its
 * reduction returns; an agreement that cannot own it offers nothing.
 * An empty result means "again" for every member alike (the reduction
 * result is the same everywhere), unless every member offered its real
 * mask (the extra word: AND of "I own the mask"), which means the
 * members share no free slot.  Owner: no other owner now and the lowest
 * (parent context, tag) among this process's agreements in progress; the
 * lowest agreement in progress in the whole job thus owns the mask on
 * every member once the current owners finish, so the job makes progress.
 * With one thread there is one agreement at a time and the first round
 * decides.
 */
#include "mpi/lc_mpi.h"
#include "mpi/lc_mpi_comm.h"

#include <stdbool.h>
#include <string.h>

typedef struct lc_ctx_waiter {
    struct lc_ctx_waiter *next;
    uint32_t ctx; /* the parent's context id */
    int tag;      /* Comm_create_group's tag; -1 for the others */
} lc_ctx_waiter_t;

/* Guarded by the MPI critical section, as all of the API layer. */
static lc_ctx_waiter_t *lc_ctx_waiters;
static bool lc_ctx_owned;

static bool lc_ctx_lowest(const lc_ctx_waiter_t *me)
{
    for (const lc_ctx_waiter_t *w = lc_ctx_waiters; w; w = w->next)
        if (w->ctx < me->ctx || (w->ctx == me->ctx && w->tag < me->tag)) return false;
    return true;
}

static void lc_ctx_unlink(lc_ctx_waiter_t *me)
{
    for (lc_ctx_waiter_t **p = &lc_ctx_waiters; *p; p = &(*p)->next)
        if (*p == me) {
            *p = me->next;
            return;
        }
}

int lc_mpi_ctx_agree(lc_comm_t *parent, int tag, lc_ctx_reduce_fn_t *reduce, void *arg, int *slot_p)
{
    lc_ctx_waiter_t me = { .next = lc_ctx_waiters, .ctx = parent->ctx, .tag = tag };
    lc_ctx_waiters = &me;
    int rc;
    for (;;) {
        uint64_t mask[LC_CTX_WORDS + 1] = { 0 }, offered[LC_CTX_WORDS];
        bool own = !lc_ctx_owned && lc_ctx_lowest(&me);
        if (own) {
            memcpy(offered, lc_comm_ctx_free_mask(), sizeof(offered));
            memcpy(mask, offered, sizeof(offered));
            mask[LC_CTX_WORDS] = 1;
            lc_comm_ctx_hold_words(offered, 1);
            lc_ctx_owned = true;
        }
        rc = reduce(mask, LC_CTX_WORDS + 1, arg);
        if (own) {
            /* The chosen slot is free again too: the caller creates the
             * communicator (which takes it) before it waits on anything. */
            lc_comm_ctx_hold_words(offered, 0);
            lc_ctx_owned = false;
        }
        if (rc != MPI_SUCCESS) break;
        int w = 0;
        while (w < LC_CTX_WORDS && !mask[w]) w++;
        if (w < LC_CTX_WORDS) {
            *slot_p = w * 64 + __builtin_ctzll(mask[w]);
            break;
        }
        if (mask[LC_CTX_WORDS]) {
            rc = lc_error(MPI_ERR_INTERN, "out of communicator context ids (2048 communicators exist, or the "
                                          "members have no free one in common); free communicators you no "
                                          "longer need");
            break;
        }
        /* Another agreement of some member owned its mask: again (the
         * reduction waited, so that one has progressed meanwhile). */
    }
    lc_ctx_unlink(&me);
    return rc;
}
