/* SPDX-License-Identifier: BSD-3-Clause */
/* lc_request.c — the request pool.
 *
 * At MPI_THREAD_MULTIPLE (decided once at init: lc_thread_locking) the
 * free stack is guarded by its own lock, so that an allocation or a
 * release needs no process-wide section; below MULTIPLE nothing is taken.
 * The table of blocks never moves (a fixed array of block pointers,
 * filled in order and published by a release store of the count), so a
 * lookup by handle or wire reference reads it without the lock. */
#include "pt2pt/lc_request.h"
#include "pt2pt/lc_park.h"
#include "pt2pt/lc_pt2pt.h"
#include "util/lc_lock.h"
#include "util/lc_thread.h"
#include "util/lc_util.h"

#include <stdlib.h>
#include <string.h>

#define LC_REQ_BLOCK_SHIFT 10
#define LC_REQ_BLOCK (1u << LC_REQ_BLOCK_SHIFT)
#define LC_REQ_MAX_BLOCKS ((LC_REQUEST_INDEX_MASK + 1) / LC_REQ_BLOCK)

static lc_request_t *lc_req_blocks[LC_REQ_MAX_BLOCKS];
static _Atomic uint32_t lc_req_nblocks; /* blocks [0, n) are allocated (release store) */
static uint32_t *lc_req_free;           /* stack of free indices (lc_req_lock at MULTIPLE) */
static uint32_t lc_req_nfree;
/* Innermost in the lock order (taken under a queue's, a peer's, the
 * section): held for a few instructions, so the small spin-then-yield
 * lock of lc_lock.h rather than a mutex (a pthread mutex's lock and
 * unlock cost ~50 instructions per allocation under callgrind); a leaf
 * one (nothing under it takes a lock, runs a callback or completes). */
static lc_leaf_lock_t lc_req_lock;

/* Taken around the free stack only at MULTIPLE (the flag is set before
 * a second thread exists in MPI and never cleared, so a lock and its
 * unlock see the same value). */
static inline void lc_req_pool_lock(int mt)
{
    if (mt) lc_leaf_acquire(&lc_req_lock);
}
static inline void lc_req_pool_unlock(int mt)
{
    if (mt) lc_leaf_release(&lc_req_lock);
}

/* Out of line: inlined, its calls made the allocation's fast path save
 * and restore six registers on every call. */
static LC_NOINLINE int lc_request_grow(void)
{
    uint32_t nb = atomic_load_explicit(&lc_req_nblocks, memory_order_relaxed);
    if (nb >= LC_REQ_MAX_BLOCKS) return -1;
    lc_request_t *blk = calloc(LC_REQ_BLOCK, sizeof(lc_request_t));
    uint32_t *fr = realloc(lc_req_free, sizeof(uint32_t) * (nb + 1) * LC_REQ_BLOCK);
    if (!blk || !fr) {
        free(blk);
        if (fr) lc_req_free = fr;
        return -1;
    }
    lc_req_free = fr;
    lc_req_blocks[nb] = blk;
    uint32_t base = nb * LC_REQ_BLOCK;
    /* Push in reverse so low indices come out first; index 0 never does. */
    for (uint32_t i = LC_REQ_BLOCK; i-- > 0;) {
        blk[i].index = base + i;
        if (base + i) lc_req_free[lc_req_nfree++] = base + i;
    }
    /* Publishes blk[] and lc_req_blocks[nb] to a lookup that reads the
     * count with acquire. */
    atomic_store_explicit(&lc_req_nblocks, nb + 1, memory_order_release);
    return 0;
}

/* The slot of `name` (a handle's or a reference's low bits) if it is in
 * use in generation `gen` (compared under `gmask`). */
static inline lc_request_t *lc_request_live(uint32_t name, uint32_t gen, uint32_t gmask)
{
    uint32_t index = name & LC_REQUEST_INDEX_MASK;
    uint32_t b = index >> LC_REQ_BLOCK_SHIFT;
    if (lc_unlikely(b >= atomic_load_explicit(&lc_req_nblocks, memory_order_acquire))) return NULL;
    lc_request_t *r = &lc_req_blocks[b][index & (LC_REQ_BLOCK - 1)];
    /* `wire` first, with acquire: it pairs with the release store of
     * lc_request_ref in the thread that put this name on the wire, so a
     * thread that resolves a peer's answer sees what that thread wrote
     * into the request before (at MULTIPLE the two may differ; the peer
     * process in between is invisible to ThreadSanitizer). */
    (void)__atomic_load_n(&r->wire, __ATOMIC_ACQUIRE);
    return lc_likely(r->in_use && (r->gen & gmask) == gen) ? r : NULL;
}

lc_request_t *lc_request_lookup(MPI_Request handle)
{
    uint32_t h = (uint32_t)handle;
    if ((h & LC_REQUEST_KIND_MASK) != LC_REQUEST_KIND) return NULL;
    return lc_request_live(h, (h >> LC_REQUEST_INDEX_BITS) & LC_REQUEST_HGEN_MASK, LC_REQUEST_HGEN_MASK);
}

lc_request_t *lc_request_by_ref(uint32_t ref)
{
    return lc_request_live(ref, (ref >> LC_REQUEST_INDEX_BITS) & LC_REQUEST_WGEN_MASK, LC_REQUEST_WGEN_MASK);
}

int lc_request_incomplete;
unsigned lc_request_started;
unsigned lc_request_completions;

/* At MULTIPLE a request is counted only while the asynchronous progress
 * thread runs (lc_request_alloc_mt): an uncounted one costs no atomic
 * read-modify-write here (the release of a completed request always is). */
static inline void lc_request_uncount(lc_request_t *req, int mt)
{
    if (!mt || req->counted) lc_count_add_mt(mt, &lc_request_incomplete, -(int)req->counted);
    req->counted = 0;
}

/* The pool's operations are written once with the level as a parameter
 * `mt` and instantiated twice, for the flag read once per call: below
 * MULTIPLE the constant 0 folds every lock and atomic away (callgrind:
 * one read of the flag per operation instead of one per counter). */
LC_INLINE lc_request_t *lc_request_alloc_mt(lc_req_kind_t kind, int mt)
{
    lc_req_pool_lock(mt);
    if (lc_unlikely(!lc_req_nfree) && lc_request_grow() != 0) {
        lc_req_pool_unlock(mt);
        return NULL;
    }
    uint32_t idx = lc_req_free[--lc_req_nfree];
    lc_req_pool_unlock(mt);
    lc_request_t *r = &lc_req_blocks[idx >> LC_REQ_BLOCK_SHIFT][idx & (LC_REQ_BLOCK - 1)];
    uint32_t gen = r->gen; /* the slot's life count survives the reset */
    lc_request_zero(r);
    r->index = idx;
    r->gen = gen;
    lc_request_setup(r, kind, mt);
    return r;
}

void lc_request_hand_off(lc_request_t *local, lc_request_t *to)
{
    int mt = lc_thread_locking();
    /* Its owner waits on `to` from now on, which is counted itself. */
    lc_request_uncount(local, mt);
    local->active = to;
    /* Release: the owner's acquire load of the flag (lc_pt2pt_wait) sees
     * `active` and everything written into `to` before.  The last touch
     * of `local`: its owner may return at once, and its stack frame with
     * it (lc_park_note only compares the address). */
    atomic_store_explicit(&local->complete, LC_REQ_HANDED_OFF, memory_order_release);
    if (mt) lc_park_note(local);
}

static lc_request_t *lc_request_alloc_st(lc_req_kind_t kind)
{
    return lc_request_alloc_mt(kind, 0);
}
static lc_request_t *lc_request_alloc_locked(lc_req_kind_t kind)
{
    return lc_request_alloc_mt(kind, 1);
}

void (*lc_request_sched_drop)(void *sched);

/* A persistent request's own release frees the object; an instance's or
 * a nonblocking request's says its operation is over. */
static LC_NOINLINE void lc_request_fin_run(lc_request_t *req)
{
    lc_req_fin_t *fin = req->fin;
    req->fin = NULL;
    int persistent = req->kind == LC_REQ_PSEND || req->kind == LC_REQ_PRECV || req->kind == LC_REQ_PCOLL;
    fin->fn(fin, persistent ? LC_FIN_FREE : LC_FIN_DONE);
}

LC_INLINE void lc_request_release_mt(lc_request_t *req, int mt)
{
    /* Releasing twice would put the index on the free stack twice: two
     * later requests would share a slot.  The MPI layer's handle checks
     * keep users from it; this is the engine's own invariant. */
    if (lc_unlikely(!req->in_use)) lc_fatal("request %u released twice", req->index);
    /* The one test the hook costs every other request (a copy-back runs
     * before anything of the request goes; see lc_req_fin_t). */
    if (lc_unlikely(req->fin != NULL)) lc_request_fin_run(req);
    if (req->sched) lc_request_sched_drop(req->sched);
    req->sched = NULL;
    if (lc_unlikely(req->udt != NULL)) lc_pt2pt_typed_drop(req);
    if (req->holds_comm) lc_comm_release_mt(req->comm, mt);
    req->holds_comm = 0;
    lc_request_uncount(req, mt);
    req->in_use = 0;
    req->gen++; /* every name of this life is stale from now on */
    lc_req_pool_lock(mt);
    lc_req_free[lc_req_nfree++] = req->index;
    lc_req_pool_unlock(mt);
}

static void lc_request_release_st(lc_request_t *req)
{
    lc_request_release_mt(req, 0);
}
static void lc_request_release_locked(lc_request_t *req)
{
    lc_request_release_mt(req, 1);
}

/* MPI_THREAD_MULTIPLE: completions whose callbacks must run inside the
 * section with no fine lock held (lc_request.h), and requests the user
 * freed while they ran (released once complete); both pushed under the
 * pool's lock (innermost in the lock order, so it may be taken under
 * any) and run by the section's holder (lc_request_run_deferred). */
static lc_request_t *lc_req_deferred;
static lc_request_t *lc_req_freed;

/* Whether a completion must be deferred: a request with something to run
 * at its end, completed by a thread outside the section or holding a fine
 * lock.  A hook marked `hook_anywhere` (a buffered send's, which takes
 * only its pool's lock, inner to every fine lock but this pool's) runs
 * where the completion happens. */
static inline int lc_request_defers(const lc_request_t *req)
{
    if (lc_likely(req->stage == NULL && req->rcur == NULL && req->on_complete == NULL && !req->user_freed)) return 0;
    if (req->stage == NULL && req->rcur == NULL && !req->user_freed && req->hook_anywhere) return 0;
    return !lc_thread_held() || lc_lock_nheld != 0;
}

/* Push `req` on `*list` through its link `*next` (defer_next or
 * freed_next: a request may be on both lists), under the pool's lock.
 * The head is stored relaxed: the lock orders the list for its takers
 * (lc_req_list_take); the lock-free look of lc_request_deferred_any is
 * a hint, and a push it misses is seen at the holder's next pass. */
static void lc_req_list_push(lc_request_t **list, lc_request_t **next, lc_request_t *req)
{
    lc_leaf_acquire(&lc_req_lock);
    *next = *list;
    __atomic_store_n(list, req, __ATOMIC_RELAXED);
    lc_leaf_release(&lc_req_lock);
}

/* The whole list, emptied, newest first. */
static lc_request_t *lc_req_list_take(lc_request_t **list)
{
    lc_leaf_acquire(&lc_req_lock);
    lc_request_t *all = *list;
    __atomic_store_n(list, NULL, __ATOMIC_RELAXED);
    lc_leaf_release(&lc_req_lock);
    return all;
}

static LC_NOINLINE void lc_request_defer(lc_request_t *req)
{
    lc_req_list_push(&lc_req_deferred, &req->defer_next, req);
}

void lc_request_free_running(lc_request_t *req)
{
    if (!lc_thread_locking()) {
        req->user_freed = 1; /* lc_request_complete releases it */
        return;
    }
    /* At MULTIPLE another thread may be completing it right now, and a
     * completion must touch nothing after its flag (a waiter may release
     * the slot then): no flag to hand over, the section releases it once
     * it sees it complete. */
    lc_req_list_push(&lc_req_freed, &req->freed_next, req);
}

LC_INLINE void lc_request_complete_mt(lc_request_t *req, int mt)
{
    if (mt && lc_unlikely(lc_request_defers(req))) {
        lc_request_defer(req);
        return;
    }
    if (lc_unlikely(req->stage != NULL || req->rcur != NULL)) lc_pt2pt_typed_done(req);
    req->state = LC_ST_DONE;
    if (!mt) {
        /* One thread: the order of before (the flag, the counters, the
         * callbacks), which keeps fewer values live across the store. */
        atomic_store_explicit(&req->complete, 1, memory_order_release);
        lc_request_completions++;
        lc_request_uncount(req, 0);
        if (lc_unlikely(req->on_complete != NULL)) req->on_complete(req);
        if (req->user_freed) lc_request_release_mt(req, 0);
        return;
    }
    /* MULTIPLE: everything read or written before the flag, since once it
     * is set a waiter in another thread may release the slot and reuse
     * it.  A request with a callback or freed by the user has no waiter
     * (its completion runs in the section, deferred above). */
    lc_request_uncount(req, 1);
    void (*on_complete)(lc_request_t *) = req->on_complete;
    int freed = req->user_freed;
    /* Release: a thread that sees the flag with acquire (lc_pt2pt_wait,
     * MPI_Test in another thread) sees the data and status written
     * before it. */
    atomic_store_explicit(&req->complete, 1, memory_order_release);
    /* After the flag: the schedule engine looks at its requests when this
     * count moved (lc_sched.c), and must then find them complete. */
    lc_count_add_mt(1, &lc_request_completions, 1u);
    /* A parked waiter may wait for this flag (lc_park.h): noted for the
     * pass's end, or the fence and look at `armed` now; neither reads
     * anything of the request (its address is only compared with the
     * parked threads' keys). */
    lc_park_note(req);
    if (lc_unlikely(on_complete != NULL)) on_complete(req);
    if (freed) lc_request_release_mt(req, 1);
}

static void lc_request_complete_st(lc_request_t *req)
{
    lc_request_complete_mt(req, 0);
}
static void lc_request_complete_locked(lc_request_t *req)
{
    lc_request_complete_mt(req, 1);
}

/* Below MULTIPLE the unlocked instances; lc_request_pool_multiple swaps
 * in the locked ones, once (lc_pt2pt_threads_multiple). */
lc_request_t *(*lc_request_alloc_p)(lc_req_kind_t kind) = lc_request_alloc_st;
void (*lc_request_release_p)(lc_request_t *req) = lc_request_release_st;
void (*lc_request_complete_p)(lc_request_t *req) = lc_request_complete_st;

/* The freed requests that completed, released; the others kept. */
static int lc_request_release_freed(void)
{
    lc_request_t *list = lc_req_list_take(&lc_req_freed);
    int n = 0;
    while (list) {
        lc_request_t *next = list->freed_next;
        if (atomic_load_explicit(&list->complete, memory_order_acquire)) {
            lc_request_release_mt(list, 1);
            n++;
        } else {
            lc_req_list_push(&lc_req_freed, &list->freed_next, list);
        }
        list = next;
    }
    return n;
}

bool lc_request_deferred_any(void)
{
    return __atomic_load_n(&lc_req_deferred, __ATOMIC_RELAXED) != NULL ||
           __atomic_load_n(&lc_req_freed, __ATOMIC_RELAXED) != NULL;
}

int lc_request_run_deferred(void)
{
    if (lc_lock_nheld != 0) return 0;
    int n = 0;
    if (lc_unlikely(__atomic_load_n(&lc_req_deferred, __ATOMIC_RELAXED) != NULL)) {
        lc_request_t *list = lc_req_list_take(&lc_req_deferred);
        /* Pushed newest first: reversed, so that they complete in the
         * order they finished (a waiter on several sees the earlier first). */
        lc_request_t *fifo = NULL;
        while (list) {
            lc_request_t *next = list->defer_next;
            list->defer_next = fifo;
            fifo = list;
            list = next;
        }
        for (; fifo; n++) {
            lc_request_t *next = fifo->defer_next;
            lc_request_complete_mt(fifo, 1); /* held, no fine lock: runs now */
            fifo = next;
        }
    }
    if (lc_unlikely(__atomic_load_n(&lc_req_freed, __ATOMIC_RELAXED) != NULL)) n += lc_request_release_freed();
    return n;
}

void lc_request_pool_multiple(void)
{
    lc_request_alloc_p = lc_request_alloc_locked;
    lc_request_release_p = lc_request_release_locked;
    lc_request_complete_p = lc_request_complete_locked;
}

void lc_status_set(MPI_Status *status, int source, int tag, size_t bytes, int cancelled)
{
    /* MPI_ERROR is not touched: only the multiple-completion calls set it
     * (MPI 4.1 §3.2.5), and they do so themselves. */
    status->MPI_SOURCE = source;
    status->MPI_TAG = tag;
    status->count_lo = (int)(uint32_t)bytes;
    /* MPICH layout: high count bits above bit 0, which is the cancel flag. */
    status->count_hi_and_cancelled = (int)(((uint64_t)bytes >> 32) << 1) | (cancelled ? 1 : 0);
}

void lc_status_empty(MPI_Status *status)
{
    lc_status_set(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
}

void lc_request_status(const lc_request_t *req, MPI_Status *status)
{
    lc_status_set(status, req->st_source, req->st_tag, req->st_bytes, req->cancelled);
}

void lc_request_pool_fini(void)
{
    uint32_t nb = atomic_load_explicit(&lc_req_nblocks, memory_order_relaxed);
    for (uint32_t b = 0; b < nb; b++) {
        free(lc_req_blocks[b]);
        lc_req_blocks[b] = NULL;
    }
    free(lc_req_free);
    lc_req_free = NULL;
    atomic_store_explicit(&lc_req_nblocks, 0, memory_order_relaxed);
    lc_req_nfree = 0;
    lc_request_incomplete = 0;
}
