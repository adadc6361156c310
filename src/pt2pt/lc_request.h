/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_request.h — requests: one object for every operation in flight.
 *
 * Requests live in a pool of fixed blocks (stable addresses, no malloc on
 * the message path once warm).  A slot's generation `gen` grows each time
 * the slot is released, so a name issued for one life of a slot never
 * names the next one:
 *   MPI handle  0xac000000 | (gen & 0x3f) << 20 | index  (MPICH's request
 *               kind in the top 6 bits; MPI_REQUEST_NULL, 0x2c000000,
 *               is never a handle)
 *   wire ref    (gen & 0xfff) << 20 | index  (a control packet's
 *               sreq/rreq: the peer only echoes it back)
 * 20 index bits: up to 2^20 - 1 requests alive at once.  Index 0 is never
 * used.  A stale handle is caught unless its slot was reused a multiple of
 * 64 times since (a stale wire reference: of 4096 times), and then it still
 * names a live request (never a freed slot).
 */
#ifndef LC_REQUEST_H
#define LC_REQUEST_H

#include "pt2pt/lc_comm.h"
#include "util/lc_list.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum lc_req_kind {
    LC_REQ_SEND = 1,
    LC_REQ_RECV,
    LC_REQ_PSEND,     /* persistent send (MPI_Send_init): `active` is its instance */
    LC_REQ_PRECV,     /* persistent receive */
    LC_REQ_MESSAGE,   /* MPI_Message from Mprobe: holds the dequeued message */
    LC_REQ_DONE,      /* generalized "already complete" (Ibsend, PROC_NULL) */
    LC_REQ_GREQ,      /* MPI_Grequest_start: completed by the user (src/mpi/lc_mpi_grequest.c) */
    LC_REQ_COLL,      /* nonblocking collective: `sched` runs it (src/coll/lc_sched.h) */
    LC_REQ_PCOLL,     /* persistent collective: `sched` built at init, `active` its instance */
    LC_REQ_PART_SEND, /* MPI_Psend_init: `part` its state, `active` the round's instance */
    LC_REQ_PART_RECV, /* MPI_Precv_init */
    LC_REQ_PART_ROUND, /* a partitioned round: completed by lc_pt2pt_part.c when its data is out/in */
} lc_req_kind_t;

typedef enum lc_send_mode {
    LC_MODE_STANDARD = 0,
    LC_MODE_SYNC,
    LC_MODE_READY,
    LC_MODE_BUFFERED,
} lc_send_mode_t;

/* Where a send or receive stands in its protocol. */
typedef enum lc_req_state {
    LC_ST_NEW = 0,
    LC_ST_EAGER_QUEUED,   /* send: eager packet waits for ring space */
    LC_ST_RTS_QUEUED,     /* send: RTS waits for ring space */
    LC_ST_WAIT_ACK,       /* send: sync eager sent, waits for ACK */
    LC_ST_WAIT_RNDV,      /* send: RTS sent, waits for FIN or CTS */
    LC_ST_STREAMING,      /* send: CTS received, DATA packets being pushed */
    LC_ST_POSTED,         /* recv: in the posted queue */
    LC_ST_RECV_DATA,      /* recv: matched an RTS, waits for DATA packets */
    LC_ST_RECV_SPLIT,     /* recv: split copy (lc_pt2pt_split.c), its part placed, waits for the sender's FIN */
    LC_ST_DONE,
} lc_req_state_t;

/* An entry of a peer's pending queue: a request (send) or a control
 * packet that found the ring full. */
typedef struct lc_pending {
    lc_list_t link;
    uint8_t is_ctl;
} lc_pending_t;

/* A higher layer's object tied to a request's life (mpi_f08's contiguous
 * copy of an array section, src/fortran/lc_f_cdesc.c): `fn` runs with
 * LC_FIN_DONE when a request holding it is released — a nonblocking
 * operation's, or a persistent request's instance, whose operation is
 * complete or cancelled by then (every path that ends one releases it:
 * Wait/Test and their array forms, a completion after Request_free) —,
 * with LC_FIN_START at MPI_Start of a persistent request holding it
 * (before the operation starts) and with LC_FIN_FREE when that persistent
 * request is released.  It runs no user code and takes no lock: it may
 * run wherever a release does.  Its layout is an ABI between libmpi and
 * libmpifort (lc_f_cdesc.c declares the same). */
typedef struct lc_req_fin {
    void (*fn)(struct lc_req_fin *fin, int event);
} lc_req_fin_t;
enum { LC_FIN_DONE = 0, LC_FIN_START = 1, LC_FIN_FREE = 2 };

typedef struct lc_request {
    lc_pending_t pend;       /* posted queue (recv) or peer pending queue (send) */
    uint32_t index;
    uint8_t kind;            /* lc_req_kind_t */
    uint8_t state;           /* lc_req_state_t */
    uint8_t mode;            /* lc_send_mode_t */
    uint8_t user_freed;      /* MPI_Request_free'd before completion */
    uint8_t in_use;
    uint8_t cancelled;
    uint8_t holds_comm;      /* holds a reference on comm (dropped at release) */
    uint8_t marked;          /* seen in the array being checked (duplicates: lc_mpi_request.c) */
    uint8_t counted;         /* counted in lc_request_incomplete (until complete or released) */
    uint8_t pick_watch;      /* recv pipelined from a calibrating peer: lc_pick_watch_t (lc_pt2pt_impl.h),
                              * set by lc_pick_pipe_start and read back by lc_pick_pipe_done */
    uint8_t wire;            /* named on the wire: lc_request_ref's release store, by_ref's acquire load */
    uint8_t typed;           /* a derived-datatype operation: udt/stage/rcur are set in its life (never
                              * cleared before release: lc_mpi_fast.h reads it while they change) */
    uint8_t pick_nt;         /* pipeline with non-temporal fragments (lc_pt2pt_pick.c): recv, the variant its
                              * CTS asked for (lc_pick_pipe_start); send, the CTS said so (LC_PKT_FLAG_NT) */
    uint8_t pick_how;        /* recv: a lone split pull timed as a calibration sample, lc_pick_choose's answer
                              * (0: none); timed to its completion, here or at the sender's FIN | SPLIT
                              * (lc_pt2pt_split.c), from pick_t0 */
    uint8_t hook_anywhere;   /* on_complete may run in any thread, under any fine lock: it takes only a
                              * lock inner to them and runs no user code (buffered sends); not deferred */
    uint32_t ctx_kind;       /* added to comm->ctx: LC_CTX_PT2PT / LC_CTX_COLL / a partitioned stream */
    atomic_int complete;     /* release store (lc_request_complete), acquire load by a waiter */
    uint32_t gen;            /* grows at each release: see the top of this file */

    /* operation */
    void *buf;
    size_t bytes;            /* send: message size; recv: buffer capacity */
    int rank;                /* comm rank of dest (send) or source (recv; may be ANY) */
    int tag;
    lc_comm_t *comm;
    lc_peer_t *peer;         /* send, or recv after matching */
    MPI_Datatype dtype;      /* persistent restart and Get_count */
    MPI_Count count;

    /* protocol */
    size_t offset;           /* pipeline: bytes pushed (send) or arrived (recv) */
    size_t msg_size;         /* recv: size of the matched message */
    uint32_t remote;         /* send: receiver's request index (pipeline) */
    double pick_t0;          /* recv: when a pipeline (or lone split: pick_how) calibration sample's RTS was
                              * taken (0: not one) */
    struct lc_request *active;  /* persistent: the running instance */
    void *bsend_block;       /* buffered send: copy in the attached buffer */
    void *msg;               /* LC_REQ_MESSAGE: the dequeued lc_unexp_t */
    void *sched;             /* LC_REQ_COLL/PCOLL: the schedule (a reference; dropped at release) */
    struct lc_part *part;    /* LC_REQ_PART_SEND/RECV: the partitioned state (lc_pt2pt_part.c) */

    /* the layers above pt2pt's (src/mpi; src/rma for its own requests,
     * which the user never sees), never touched by pt2pt */
    struct lc_request *partner; /* Isendrecv's receive: its send half, released with it */
    void *ext;                  /* LC_REQ_GREQ: its callbacks; Isendrecv_replace: the send copy; a request
                                 * with on_complete: the hook's argument (buffered sends, one-sided answers) */

    /* derived datatypes that are not one run of bytes (lc_pt2pt_typed.c):
     * a receive unpacks through `rcur`; a send to a shm peer packs from
     * `rcur` into each cell as it goes out (buf: its block list, nblocks
     * entries, or NULL), a send to another peer packs into `stage` */
    struct lc_dt *udt;         /* retained while the operation is pending (persistent: while it lives) */
    void *ubuf;                /* the user's buffer */
    MPI_Count ucount;          /* items of udt at ubuf */
    void *stage;               /* send: the packed message (packed at start, freed at completion) */
    struct lc_dt_cursor *rcur; /* recv: where the next arriving bytes go in ubuf; send: where the next
                                * bytes to send come from (owned) */
    uint32_t nblocks;          /* send with rcur: entries of the block list at buf (0: none) */
    /* Called by lc_request_complete after the request is marked complete
     * (NULL: nothing).  A higher layer's completion hook: buffered sends
     * (src/mpi/lc_mpi_bsend.c) count the messages an MPI_*_iflush_buffer
     * waits for with it.  It must not release `req`.  Next to stage and
     * rcur, which lc_request_complete reads anyway: the same cache line. */
    void (*on_complete)(struct lc_request *req);
    lc_req_fin_t *fin;         /* NULL, or run at release (above lc_request_t); only the MPI layer sets it */
    /* MPI_THREAD_MULTIPLE: the lists of completions deferred to the
     * section's holder and of freed requests it releases once complete
     * (lc_request_run_deferred); a request may be on both. */
    struct lc_request *defer_next;
    struct lc_request *freed_next;
    /* status */
    int st_source, st_tag, st_error;
    size_t st_bytes;
} lc_request_t;

#define LC_REQUEST_KIND 0xac000000u
#define LC_REQUEST_KIND_MASK 0xfc000000u
#define LC_REQUEST_INDEX_BITS 20
#define LC_REQUEST_INDEX_MASK ((1u << LC_REQUEST_INDEX_BITS) - 1)
#define LC_REQUEST_HGEN_MASK 0x3fu  /* generation bits in a handle */
#define LC_REQUEST_WGEN_MASK 0xfffu /* generation bits in a wire reference */

/* The pool's three hot operations go through pointers set once: the
 * unlocked instances below MPI_THREAD_MULTIPLE, the locked ones (the
 * pool's lock of lc_lock.h, atomic counters) from the moment it is granted
 * (lc_request_pool_multiple, before a second thread is in MPI).  An
 * indirect call costs what a direct one does; a flag test in each of
 * them cost THREAD_SINGLE ~3 instructions per operation. */
extern LC_HIDDEN lc_request_t *(*lc_request_alloc_p)(lc_req_kind_t kind);
extern LC_HIDDEN void (*lc_request_release_p)(lc_request_t *req);
extern LC_HIDDEN void (*lc_request_complete_p)(lc_request_t *req);
void lc_request_pool_multiple(void);
/* MPI_THREAD_MULTIPLE: run the completions that threads outside the
 * section, or holding a shm/queue lock, deferred (a request with a
 * callback, a staging buffer or cursor, or one the user freed: its
 * completion may run user code — attribute delete callbacks of the
 * communicator or datatype it was holding — or touch the section's
 * state).  Called by the section's holder with no such lock held
 * (lc_progress); returns how many ran. */
int lc_request_run_deferred(void);
/* Something for lc_request_run_deferred (a relaxed look, from any thread). */
bool lc_request_deferred_any(void);
/* MPI_Request_free of a request that was not complete when looked at:
 * released by its completion — at MULTIPLE, by the section's holder once
 * it is complete (lc_request_run_deferred): the completing thread may be
 * another one, which must not touch the request after its flag. */
void lc_request_free_running(lc_request_t *req);

static inline lc_request_t *lc_request_alloc(lc_req_kind_t kind)
{
    return lc_request_alloc_p(kind);
}

/* A request on its owner's stack: a blocking receive's (lc_pt2pt_recv),
 * whose owner waits for it and returns — no handle, no pool slot (the
 * pool's pop and push, its release's checks: ~80 of the 8 B round trip's
 * 743 instructions).  Index 0, which no pool slot has, marks it; it has no
 * name a packet could carry (lc_request_ref must never be asked for it:
 * an answer naming index 0 finds no request), so a delivery that needs one
 * — a rendezvous — hands the operation off to a pool request
 * (lc_request_hand_off) first.  Everything else treats it as any request:
 * queued, matched, completed by lc_request_complete (which at MULTIPLE
 * touches nothing of a request after its flag but its address, so the
 * owner may return — and its frame be reused — as soon as the flag is
 * seen) and never released.  Counted as lc_request_alloc counts: the
 * completion (or the hand-off) uncounts it. */
static inline bool lc_request_is_local(const lc_request_t *req)
{
    return req->index == 0;
}
/* `complete` of a local request whose operation goes on in `active`, a
 * pool request its owner waits for and releases. */
#define LC_REQ_HANDED_OFF 2
/* The operation of local request `local`, with its fields copied into
 * pool request `to` by the caller, goes on in `to`: `local` is marked
 * LC_REQ_HANDED_OFF (release) and not touched again — the caller owns it
 * no longer either (its owner may return at once). */
void lc_request_hand_off(lc_request_t *local, lc_request_t *to);
/* Operations in flight that progress can advance: sends, receives,
 * collective instances and partitioned rounds allocated and neither
 * complete nor released (persistent and partitioned handles, messages
 * and generalized requests are not counted: progress does nothing for
 * them).  The asynchronous progress thread sleeps while it is 0.  At
 * MULTIPLE without that thread (its one reader, with lc_request_started)
 * requests are not counted (`counted` 0): lc_request.c. */
extern int lc_request_incomplete;
/* Counted requests allocated so far (wraps): grows when a call started an
 * operation or a schedule's next round (the progress thread's doorbell,
 * src/pt2pt/lc_async.c, rings only for such calls). */
extern unsigned lc_request_started;
/* Requests completed so far by lc_request_complete (wraps): the schedule
 * engine looks at its running schedules only when it changed. */
extern unsigned lc_request_completions;

/* Kinds counted in lc_request_incomplete (above). */
#define LC_REQ_COUNTED ((1u << LC_REQ_SEND) | (1u << LC_REQ_RECV) | (1u << LC_REQ_COLL) | (1u << LC_REQ_PART_ROUND))

/* An unaligned 16-byte vector: SSE2 stores, which every x86-64 has. */
typedef long long lc_req_zero16 __attribute__((vector_size(16), aligned(8), may_alias));
_Static_assert(sizeof(lc_request_t) % 16 == 0 || sizeof(lc_request_t) % 16 == 8,
               "a request is a whole number of words (the tail store below is one word)");

/* memset(r, 0, sizeof(*r)), which GCC makes a `rep stosq` of 35 words
 * at this size: its start-up costs more than the stores themselves
 * (session 12 traced Ibarrier's extra cost over Barrier partly to the
 * pool's resets, one per request: three against two; with two threads
 * sending 8 B messages it was two thirds of lc_request_alloc's profile
 * samples, 38-44 ns against 13-27 ns for the stores below on this AMD
 * EPYC).  Plain 16-byte
 * stores instead, unrolled (the count is a constant); the empty asm
 * keeps GCC's loop-pattern pass from turning the loop back into memset. */
static inline void lc_request_zero(lc_request_t *r)
{
    char *p = (char *)r;
    size_t i = 0;
#pragma GCC unroll 32
    for (; i + 16 <= sizeof(*r); i += 16) {
        *(lc_req_zero16 *)(void *)(p + i) = (lc_req_zero16){0, 0};
        __asm__("" : "+r"(p));
    }
    if (i < sizeof(*r)) *(uint64_t *)(void *)(p + i) = 0;
}

/* The fields every request starts with, after its reset: kind, in use,
 * counted or not (lc_request_alloc_mt's comment), unlinked. */
LC_INLINE void lc_request_setup(lc_request_t *r, lc_req_kind_t kind, int mt)
{
    r->kind = (uint8_t)kind;
    r->in_use = 1;
    unsigned counted = (LC_REQ_COUNTED >> kind) & 1u;
    /* lc_request_incomplete and lc_request_started have one reader, the
     * asynchronous progress thread (lc_async.c: lc_progress_pending, the
     * doorbell's "started" look).  Below MULTIPLE they are plain adds; at
     * MULTIPLE each is an atomic read-modify-write of a line every thread
     * writes, so there they are counted only when that thread exists
     * (lc_thread_async: set before it starts and before any request, in
     * MPI_Init, never while requests are in flight).  `counted` records
     * the choice, so the request's uncount matches its count whatever
     * happens meanwhile. */
    if (mt) counted &= (unsigned)(lc_thread_async != 0);
    r->counted = (uint8_t)counted;
    if (!mt || counted) {
        lc_count_add_mt(mt, &lc_request_incomplete, (int)counted);
        lc_count_add_mt(mt, &lc_request_started, counted);
    }
    lc_list_init(&r->pend.link);
}

/* A local request (lc_request_is_local) made ready, at the level `mt`
 * (lc_thread_locking(), or a constant in an instance of the caller):
 * inline, as the blocking receive's whole set-up. */
LC_INLINE void lc_request_init_local(lc_request_t *r, lc_req_kind_t kind, int mt)
{
    /* index 0 (never a pool slot's) marks it; gen 0; no name is issued. */
    lc_request_zero(r);
    lc_request_setup(r, kind, mt);
}
/* Keep req->comm alive while the request exists (requests the user can
 * hold across MPI_Comm_free). */
static inline void lc_request_hold_comm(lc_request_t *req)
{
    if (req->comm && !req->holds_comm) {
        lc_comm_retain(req->comm);
        req->holds_comm = 1;
    }
}
static inline void lc_request_release(lc_request_t *req)
{
    lc_request_release_p(req);
}
/* Drops a request's reference on its schedule (`sched`) when the request
 * is released.  Set by the collective layer at MPI_Init; the request pool
 * sits below it and knows nothing of schedules. */
extern void (*lc_request_sched_drop)(void *sched);
lc_request_t *lc_request_lookup(MPI_Request handle); /* NULL unless it names a live request */
/* The request a wire reference names: NULL unless its slot is in use in
 * the generation the reference was issued in. */
lc_request_t *lc_request_by_ref(uint32_t ref);

static inline MPI_Request lc_request_handle(const lc_request_t *req)
{
    return (MPI_Request)(LC_REQUEST_KIND | (req->gen & LC_REQUEST_HGEN_MASK) << LC_REQUEST_INDEX_BITS | req->index);
}

/* How a packet names the request (sreq/rreq fields).  Called once the
 * fields the answer's handler reads (state, buffers) are written: `wire`
 * is stored with release, for lc_request_by_ref's acquire load in the
 * thread that handles the answer (MULTIPLE: maybe another one; a plain
 * move on x86-64). */
static inline uint32_t lc_request_ref(lc_request_t *req)
{
    __atomic_store_n(&req->wire, 1, __ATOMIC_RELEASE);
    return (req->gen & LC_REQUEST_WGEN_MASK) << LC_REQUEST_INDEX_BITS | req->index;
}

/* Mark complete; a request the user already freed is released here.  A
 * typed request drops its stage or cursor and its datatype first. */
static inline void lc_request_complete(lc_request_t *req)
{
    lc_request_complete_p(req);
}

/* Fill an MPI_Status (MPICH layout) from a completed request.  These
 * never write MPI_ERROR (see lc_status_set). */
void lc_request_status(const lc_request_t *req, MPI_Status *status);
void lc_status_set(MPI_Status *status, int source, int tag, size_t bytes, int cancelled);
void lc_status_empty(MPI_Status *status);

void lc_request_pool_fini(void);

#endif
