/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_bsend.h — a buffered-send pool: the space one attached buffer
 * offers (MPI_Buffer_attach: the process's; MPI_Comm_attach_buffer: one
 * communicator's; MPI_Session_attach_buffer: one session's) and the
 * buffered messages still leaving it.
 */
#ifndef LC_MPI_BSEND_H
#define LC_MPI_BSEND_H

#include "mpi/lc_mpi_request.h"

typedef struct lc_bsend_block {
    size_t offset, len; /* within the attached buffer, overhead included */
    lc_request_t *req;  /* the internal send; its `ext` points to the pool */
    char *own;          /* MPI_BUFFER_AUTOMATIC: the block's own allocation */
    uint64_t seq;       /* the pool's message count when it was sent */
} lc_bsend_block_t;

/* A pending MPI_*_iflush_buffer: `req` completes when the `left`
 * messages with seq < `upto` still in flight at the call have left. */
typedef struct lc_bsend_flush {
    struct lc_bsend_flush *next;
    lc_request_t *req;
    uint64_t upto;
    int left;
} lc_bsend_flush_t;

typedef struct lc_bsend_pool {
    char *base;               /* NULL: nothing attached (unless automatic) */
    size_t size;
    int automatic;            /* MPI_BUFFER_AUTOMATIC: space is allocated per message */
    lc_bsend_block_t *blocks; /* sorted by offset (automatic: in send order) */
    int nblocks, cap;
    uint64_t next_seq;         /* seq of the next message */
    lc_bsend_flush_t *flushes; /* pending iflush requests, newest first */
} lc_bsend_pool_t;

static inline bool lc_bsend_pool_attached(const lc_bsend_pool_t *p)
{
    return p->base || p->automatic;
}

/* The pool MPI_Buffer_attach fills. */
extern lc_bsend_pool_t lc_bsend_proc;
/* The pool a buffered send on `c` uses: the communicator's own when one is
 * attached, else its session's when it derives from a session that has one
 * (lc_session_pool), else the process's (lc_mpi_bsend_comm.c). */
lc_bsend_pool_t *lc_bsend_pool_of(lc_comm_t *c);
/* Sessions' pools (lc_mpi_session.c).  The pool of the session with id
 * `session` when a buffer is attached to it; NULL otherwise. */
lc_bsend_pool_t *lc_session_pool(uint32_t session);
/* The pool of a session handle (attached or not); MPI_ERR_SESSION. */
int lc_session_buffer(MPI_Session session, lc_bsend_pool_t **pool_p);
/* Raise `code` from `func` on the session's error handler (an invalid
 * handle's errors go where lc_mpi_error sends them). */
int lc_session_fail(MPI_Session session, const char *func, int code);
/* Attach `buffer` (or MPI_BUFFER_AUTOMATIC) to an empty pool; error code. */
int lc_bsend_pool_attach(lc_bsend_pool_t *p, void *buffer, MPI_Count size);
/* Wait until every message of the pool has left it (MPI_Buffer_flush). */
void lc_bsend_pool_flush(lc_bsend_pool_t *p);
/* MPI_*_iflush_buffer: a new request (user-visible, not yet handed out)
 * that completes when every message in flight now has left the pool
 * (at once when none is).  Error code. */
int lc_bsend_pool_iflush(lc_bsend_pool_t *p, lc_request_t **req_p);
/* Flush, then empty the pool: *buffer_p, *size_p what was attached. */
void lc_bsend_pool_detach(lc_bsend_pool_t *p, void **buffer_p, MPI_Count *size_p);

#endif
