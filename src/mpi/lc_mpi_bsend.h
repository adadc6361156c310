/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_bsend.h — a buffered-send pool: the space one attached buffer
 * offers (MPI_Buffer_attach: the process's; MPI_Comm_attach_buffer: one
 * communicator's; MPI_Session_attach_buffer: one session's) and the
 * buffered messages still leaving it.
 *
 * MPI_THREAD_MULTIPLE: Bsend and Ibsend run outside the process-wide
 * section (src/mpi/lc_mpi_fast.h), whichever pool they use, so every
 * field of a pool is read and written under its `lock` (taken at MULTIPLE
 * only), and a pool record stays where it is while a send may find it
 * (the process's is static, a session's is in the static session table,
 * a communicator's lives as long as the communicator: lc_comm_t's
 * `bsend_pool`).
 * The lock is innermost but for the request pool's: nothing that waits,
 * progresses, starts a send or completes a request with a hook runs under
 * it (a completion under a fine lock is deferred to the section's holder,
 * which would never come while a waiter held this one).
 */
#ifndef LC_MPI_BSEND_H
#define LC_MPI_BSEND_H

#include "mpi/lc_mpi_request.h"
#include "util/lc_lock.h"

typedef struct lc_bsend_block {
    size_t offset, len; /* within the attached buffer, overhead included */
    lc_request_t *req;  /* the internal send; its `ext` points to the pool */
    char *own;          /* MPI_BUFFER_AUTOMATIC: the block's own allocation */
    uint64_t seq;       /* the pool's message count when it was sent */
    int sent;           /* set by the send's completion hook: the block may go */
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
    int detaching;             /* a detach waits for the messages: no new ones */
    lc_lock_t lock;            /* all of the above (a zeroed lock is free) */
} lc_bsend_pool_t;

/* Read in the section only (attach and detach are section calls): the
 * threads outside it never change `base` or `automatic`; they ask
 * lc_bsend_pool_live. */
static inline bool lc_bsend_pool_attached(const lc_bsend_pool_t *p)
{
    return p->base || p->automatic;
}
/* lc_bsend_pool_attached under the pool's lock: from any thread.  A
 * detach may follow at once; the send then fails with MPI_ERR_BUFFER
 * ("being detached" or "no buffer attached"), as one that came just
 * after the detach would. */
bool lc_bsend_pool_live(lc_bsend_pool_t *p);

/* The pool MPI_Buffer_attach fills. */
extern lc_bsend_pool_t lc_bsend_proc;
/* The pool a buffered send on `c` uses: the communicator's own when one is
 * attached, else its session's when it derives from a session that has one
 * (lc_session_pool), else the process's (lc_mpi_bsend_comm.c).  From any
 * thread, inside the section or not. */
lc_bsend_pool_t *lc_bsend_pool_of(lc_comm_t *c);
/* Sessions' pools (lc_mpi_session.c).  The pool of the session with id
 * `session` when a buffer is attached to it; NULL otherwise.  From any
 * thread: the table's `in_use` and `id` are atomics. */
lc_bsend_pool_t *lc_session_pool(uint32_t session);
/* The pool of a session handle (attached or not); MPI_ERR_SESSION. */
int lc_session_buffer(MPI_Session session, lc_bsend_pool_t **pool_p);
/* Raise `code` from `func` on the session's error handler (an invalid
 * handle's errors go where lc_mpi_error sends them). */
int lc_session_fail(MPI_Session session, const char *func, int code);
/* Attach `buffer` (or MPI_BUFFER_AUTOMATIC) to an empty pool; error code. */
int lc_bsend_pool_attach(lc_bsend_pool_t *p, void *buffer, MPI_Count size);
/* A message of `len` bytes (`bytes` of data) sent by `req`, a send
 * request not yet started whose completion hook is lc_bsend_sent and
 * whose `ext` is the pool: its block placed, *copy_p where its data goes
 * (in the attached buffer, or an automatic pool's allocation for it).
 * Error code (MPI_ERR_BUFFER: no room). */
int lc_bsend_pool_reserve(lc_bsend_pool_t *p, lc_request_t *req, size_t len, size_t bytes, char **copy_p);
/* Take back the block of a request that was never started. */
void lc_bsend_pool_unreserve(lc_bsend_pool_t *p, lc_request_t *req);
/* The internal sends' completion hook. */
void lc_bsend_sent(lc_request_t *req);
/* Wait until every message of the pool has left it (MPI_Buffer_flush). */
void lc_bsend_pool_flush(lc_bsend_pool_t *p);
/* MPI_*_iflush_buffer: a new request (user-visible, not yet handed out)
 * that completes when every message in flight now has left the pool
 * (at once when none is).  Error code. */
int lc_bsend_pool_iflush(lc_bsend_pool_t *p, lc_request_t **req_p);
/* Flush, then empty the pool: *buffer_p, *size_p what was attached
 * (NULL, 0 when nothing was, or another thread is detaching it).
 * Buffered sends that come meanwhile fail with MPI_ERR_BUFFER. */
void lc_bsend_pool_detach(lc_bsend_pool_t *p, void **buffer_p, MPI_Count *size_p);

#endif
