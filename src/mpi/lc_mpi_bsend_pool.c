/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_bsend_pool.c — one attached buffer's pool (lc_mpi_bsend.h): the
 * space it offers, the buffered messages still leaving it, attach, flush,
 * iflush and detach.  The MPI calls that fill it are lc_mpi_bsend.c's.
 *
 * A message's life in the pool: reserved (a block record with its send
 * request, which is not started yet, under the pool's lock), copied in
 * and started without the lock, marked `sent` by the send's completion
 * hook (under the lock), released by the next reap (under the lock).
 * Flush and detach wait until the blocks they wait for have been reaped;
 * they hold no request pointer across the wait (another thread's reap
 * may release it), only the pool's sequence numbers.
 *
 * Why the hook, not the request's `complete` flag, frees a block: at
 * MPI_THREAD_MULTIPLE the hook runs after the flag is set (lc_request.c),
 * in the completing thread, while another thread may be reaping; a block
 * reaped on the flag alone could release the request under the running
 * hook.  The hook runs where the send completes (`hook_anywhere`: not
 * deferred to the section's holder, which in a loop of Bsend and Recv
 * outside the section came seldom — blocks piled up until the buffer was
 * full, 15,400 instructions per Bsend+Recv against 1,500), under whatever
 * fine lock the completing thread holds: so nothing under the pool's lock
 * takes any lock but the request pool's, and the hook completes the
 * iflush requests (no hook of their own) after letting it go.  And an iflush counts the blocks not yet
 * `sent`, which the hook counts off, both under the lock: one decrement
 * per counted block whatever the order of the two.
 *
 * Nonblocking flushes (MPI_Buffer_iflush & co.): while an iflush is
 * pending on the pool, the hook counts the message off every iflush that
 * waits for it; the iflush request completes when its count reaches zero,
 * from whatever progress call completed the last send.  Messages sent
 * after the iflush call are not waited for (their seq is past its `upto`).
 */
#include "mpi/lc_mpi_bsend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

lc_bsend_pool_t lc_bsend_proc;

/* Taken at MULTIPLE only (the section's level is decided before a second
 * thread is in MPI); below it one thread touches the pool. */
static inline void lc_bsend_lock(lc_bsend_pool_t *p)
{
    if (lc_thread_locking()) lc_lock_acquire(&p->lock);
}

static inline void lc_bsend_unlock(lc_bsend_pool_t *p)
{
    if (lc_thread_locking()) lc_lock_release(&p->lock);
}

/* Under the lock: release the blocks whose send has finished (their hook
 * ran; the request pool's lock is the only one taken under this one). */
static void lc_bsend_reap(lc_bsend_pool_t *p)
{
    int j = 0;
    for (int i = 0; i < p->nblocks; i++) {
        if (p->blocks[i].sent) {
            lc_request_release(p->blocks[i].req);
            free(p->blocks[i].own);
        } else {
            p->blocks[j++] = p->blocks[i];
        }
    }
    p->nblocks = j;
}

/* First fit; returns the index the new block must take, or -1.  An
 * automatic pool always has room: the block goes last. */
static int lc_bsend_find(lc_bsend_pool_t *p, size_t len, size_t *offset_p)
{
    size_t at = 0;
    if (p->automatic) {
        *offset_p = 0;
        return p->nblocks;
    }
    for (int i = 0; i <= p->nblocks; i++) {
        size_t end = i < p->nblocks ? p->blocks[i].offset : p->size;
        if (end >= at && end - at >= len) {
            *offset_p = at;
            return i;
        }
        if (i < p->nblocks) at = p->blocks[i].offset + p->blocks[i].len;
    }
    return -1;
}

/* Why lc_bsend_place found no room. */
enum { LC_BSEND_FULL = -1, LC_BSEND_NONE = -2, LC_BSEND_DETACHING = -3 };

/* Under the lock: room for `len` bytes, the record inserted: 0 and
 * *copy_p where the message goes; LC_BSEND_FULL/NONE/DETACHING; an error
 * code when the records cannot grow. */
static int lc_bsend_place(lc_bsend_pool_t *p, lc_request_t *req, size_t len, size_t bytes, char **copy_p)
{
    size_t offset = 0;
    char *own = NULL;
    if (p->detaching) return LC_BSEND_DETACHING;
    if (!lc_bsend_pool_attached(p)) return LC_BSEND_NONE;
    lc_bsend_reap(p);
    int at = lc_bsend_find(p, len, &offset);
    if (at < 0) return LC_BSEND_FULL;
    if (p->nblocks == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16;
        lc_bsend_block_t *b = realloc(p->blocks, sizeof(*b) * (size_t)cap);
        if (!b) return lc_error(MPI_ERR_NO_MEM, "out of memory for %d buffered-send records", cap);
        p->blocks = b;
        p->cap = cap;
    }
    if (p->automatic && !(own = malloc(len)))
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte buffered message", bytes);
    memmove(&p->blocks[at + 1], &p->blocks[at], sizeof(*p->blocks) * (size_t)(p->nblocks - at));
    p->blocks[at] = (lc_bsend_block_t){ offset, len, req, own, p->next_seq++, 0 };
    p->nblocks++;
    *copy_p = own ? own : p->base + offset;
    return 0;
}

bool lc_bsend_pool_live(lc_bsend_pool_t *p)
{
    lc_bsend_lock(p);
    bool live = lc_bsend_pool_attached(p);
    lc_bsend_unlock(p);
    return live;
}

int lc_bsend_pool_reserve(lc_bsend_pool_t *p, lc_request_t *req, size_t len, size_t bytes, char **copy_p)
{
    lc_bsend_lock(p);
    int rc = lc_bsend_place(p, req, len, bytes, copy_p);
    lc_bsend_unlock(p);
    if (rc == LC_BSEND_FULL) { /* give completed sends a chance to finish (no lock held: hooks may run) */
        lc_progress();
        lc_bsend_lock(p);
        rc = lc_bsend_place(p, req, len, bytes, copy_p);
        lc_bsend_unlock(p);
    }
    if (rc < 0)
        return lc_error(MPI_ERR_BUFFER,
                        "no room in the attached buffer for a %zu-byte message (%s; each message needs its "
                        "size + MPI_BSEND_OVERHEAD = %d bytes): attach a larger buffer with MPI_Buffer_attach",
                        bytes,
                        rc == LC_BSEND_FULL   ? "buffer full"
                        : rc == LC_BSEND_NONE ? "no buffer attached"
                                              : "the buffer is being detached by another thread",
                        MPI_BSEND_OVERHEAD);
    return rc;
}

void lc_bsend_pool_unreserve(lc_bsend_pool_t *p, lc_request_t *req)
{
    lc_bsend_lock(p);
    for (int i = 0; i < p->nblocks; i++)
        if (p->blocks[i].req == req) {
            free(p->blocks[i].own);
            memmove(&p->blocks[i], &p->blocks[i + 1], sizeof(*p->blocks) * (size_t)(p->nblocks - i - 1));
            p->nblocks--;
            break;
        }
    lc_bsend_unlock(p);
}

/* Completion hook of an internal send, in the thread that completes it
 * (perhaps holding a ring's or a peer's lock: see the head comment).  The
 * block is in the pool (placed before the send started) and stays until
 * a reap sees `sent`. */
void lc_bsend_sent(lc_request_t *req)
{
    lc_bsend_pool_t *p = req->ext;
    lc_bsend_flush_t *done = NULL;
    lc_bsend_lock(p);
    for (int i = 0; i < p->nblocks; i++) {
        lc_bsend_block_t *b = &p->blocks[i];
        if (b->req != req) continue;
        b->sent = 1;
        for (lc_bsend_flush_t **at = &p->flushes, *f; (f = *at) != NULL;) {
            if (b->seq < f->upto && --f->left == 0) {
                *at = f->next;
                f->next = done;
                done = f;
            } else {
                at = &f->next;
            }
        }
        break;
    }
    lc_bsend_unlock(p);
    while (done) { /* outside the lock; the flush requests have no hook: no recursion */
        lc_bsend_flush_t *next = done->next;
        lc_request_complete(done->req);
        free(done);
        done = next;
    }
}

int lc_bsend_pool_iflush(lc_bsend_pool_t *p, lc_request_t **req_p)
{
    lc_request_t *req = lc_request_alloc(LC_REQ_DONE);
    lc_bsend_flush_t *f = malloc(sizeof(*f));
    if (!req || !f) {
        if (req) lc_request_release(req);
        free(f);
        return lc_error(MPI_ERR_NO_MEM, "out of memory for a buffer flush");
    }
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    lc_bsend_lock(p);
    int left = 0;
    for (int i = 0; i < p->nblocks; i++) left += !p->blocks[i].sent;
    if (left) {
        *f = (lc_bsend_flush_t){ p->flushes, req, p->next_seq, left };
        p->flushes = f;
    }
    lc_bsend_unlock(p);
    if (!left) {
        free(f);
        lc_request_complete(req);
    }
    *req_p = req;
    return MPI_SUCCESS;
}

int lc_bsend_pool_attach(lc_bsend_pool_t *p, void *buffer, MPI_Count size)
{
    int rc = MPI_SUCCESS;
    if (buffer != MPI_BUFFER_AUTOMATIC) {
        if (size < 0) return lc_error(MPI_ERR_ARG, "buffer size %lld is negative", (long long)size);
        if (!buffer && size > 0) return lc_error(MPI_ERR_BUFFER, "buffer is NULL");
    }
    lc_bsend_lock(p);
    if (p->base || p->automatic || p->detaching)
        rc = lc_error(MPI_ERR_BUFFER, "a buffer is already attached: detach it first");
    else if (buffer == MPI_BUFFER_AUTOMATIC)
        p->automatic = 1;
    else {
        p->base = buffer;
        p->size = (size_t)size;
    }
    lc_bsend_unlock(p);
    return rc;
}

/* Wait until no block with seq < upto is left (reaped). */
static void lc_bsend_drain(lc_bsend_pool_t *p, uint64_t upto)
{
    for (;;) {
        int left = 0;
        lc_bsend_lock(p);
        lc_bsend_reap(p);
        for (int i = 0; i < p->nblocks && !left; i++) left = p->blocks[i].seq < upto;
        lc_bsend_unlock(p);
        if (!left) return;
        if (!lc_progress()) lc_progress_idle();
    }
}

void lc_bsend_pool_flush(lc_bsend_pool_t *p)
{
    lc_bsend_lock(p);
    uint64_t upto = p->next_seq;
    lc_bsend_unlock(p);
    lc_bsend_drain(p, upto); /* every hook ran: no iflush waits for these */
}

void lc_bsend_pool_detach(lc_bsend_pool_t *p, void **buffer_p, MPI_Count *size_p)
{
    lc_bsend_lock(p);
    if (p->detaching) { /* another thread detaches it: nothing is attached for this call */
        lc_bsend_unlock(p);
        *buffer_p = NULL;
        *size_p = 0;
        return;
    }
    p->detaching = 1; /* no new message from here (lc_bsend_place) */
    lc_bsend_unlock(p);
    lc_bsend_drain(p, UINT64_MAX); /* detach blocks until every buffered message has left */
    lc_bsend_lock(p);
    *buffer_p = p->automatic ? MPI_BUFFER_AUTOMATIC : p->base;
    *size_p = (MPI_Count)p->size;
    free(p->blocks);
    p->blocks = NULL;
    p->nblocks = p->cap = 0;
    p->base = NULL;
    p->size = 0;
    p->automatic = 0;
    p->next_seq = 0;
    p->flushes = NULL; /* every hook ran: each iflush completed */
    p->detaching = 0;
    lc_bsend_unlock(p);
}
