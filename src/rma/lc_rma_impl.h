/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_rma_impl.h — what the files of src/rma share: the window object,
 * the segment header of direct windows, the active-message packet.
 */
#ifndef LC_RMA_IMPL_H
#define LC_RMA_IMPL_H

#include "channel/lc_ofi.h"
#include "rma/lc_rma.h"
#include "util/lc_list.h"

/* Tags on the window's private communicator (point-to-point context for
 * one-sided traffic, collective context for PSCW and freeing). */
enum {
    LC_RMA_TAG_REQ = 1,
    LC_RMA_TAG_RESP = 2, /* an answer: the result (or nothing) */
    LC_RMA_TAG_POST = 3,
    LC_RMA_TAG_DONE = 4,
    LC_RMA_TAG_DATA = 5,
    LC_RMA_TAG_FAIL = 6, /* an answer saying the request was not applied: an int32 MPI error class */
};

/* Active-message requests up to this size (header + data) go out as one
 * eager packet from the caller's buffers and are served in the target's
 * packet handler (lc_rma_am.c); larger ones through a copy and the queue. */
#define LC_RMA_AM_INLINE 1024

/* One cache line per rank in the segment header of a direct window:
 * `lock` is the passive-target lock of that rank's memory (bit 31:
 * exclusive holder, low bits: shared holders), `acc` serialises the
 * accumulates into it.  Both are only touched with atomics. */
typedef struct lc_rma_line {
    uint32_t lock;
    uint32_t acc;
    char pad[56];
} lc_rma_line_t;
#define LC_RMA_EXCL 0x80000000u

/* The header of an active-message request; data follows it (for CAS:
 * the new value, then the comparand).  With a derived target type
 * (nblocks > 0) the target's blocks come first, nblocks lc_rma_blk_t
 * relative to `disp`, then the packed data; `count` elements of `dt`
 * are the blocks' total length. */
typedef struct lc_rma_pkt {
    uint8_t kind;      /* lc_rma_kind_t */
    uint8_t lock_type; /* LOCK: MPI_LOCK_EXCLUSIVE - 234 or SHARED - 234 */
    uint16_t flags;    /* LC_RMA_F_* */
    MPI_Datatype dt;
    MPI_Op op;
    uint32_t nblocks; /* 0: count contiguous elements at disp */
    uint64_t disp;  /* byte offset in the target's window (dynamic: address) */
    uint64_t count; /* elements */
} lc_rma_pkt_t;

/* A PUT whose data is not in the request but follows it as a message of
 * its own (tag DATA), which the target receives straight into window
 * memory (lc_rma_am_put_stream). */
#define LC_RMA_F_STREAM 1u
/* An UNLOCK undoing a failed MPI_Win_lock_all (lc_rma_sync.c): a target
 * that granted nothing answers it as failed without a warning. */
#define LC_RMA_F_UNDO 2u

/* One block of a derived target type: `len` bytes at `off` from the
 * operation's displacement (off may be negative: a type's lb). */
typedef struct lc_rma_blk {
    int64_t off;
    int64_t len;
} lc_rma_blk_t;

/* A result that arrives packed and is unpacked into the user's derived
 * result type when the answer completes (t retained meanwhile). */
typedef struct lc_rma_unpack {
    struct lc_dt *t; /* NULL: none */
    MPI_Count count;
    void *buf;
} lc_rma_unpack_t;

/* An arrived request waiting for its data or its turn (FIFO per window:
 * operations apply in arrival order, which keeps each origin's order). */
typedef struct lc_rma_in {
    lc_list_t link;
    lc_request_t *req; /* the receive of the whole message, then (streamed) of its data */
    char *buf;
    size_t len; /* of the message: a peer's header is checked against it */
    int source;
    bool streaming; /* req receives a streamed PUT's data into window memory */
} lc_rma_in_t;

/* A lock request the target could not grant yet. */
typedef struct lc_rma_waiter {
    lc_list_t link;
    int source;
    int exclusive;
} lc_rma_waiter_t;

/* A request of ours in flight: an answer we expect (flush waits for it)
 * or a send whose buffer we free when it completes.  A user request
 * (MPI_Rput ...) is not here: the answer's completion hook completes it
 * (lc_rma_am.c), so no pass has to look for it. */
typedef struct lc_rma_out {
    lc_request_t *req;
    void *buf; /* send buffer to free, or NULL */
    int target;
    int sample;             /* > 0: a timed answer, lc_rma_pick_sample's class + 1 */
    double t0;              /* with sample: when the request left (lc_time_now) */
    lc_rma_unpack_t unpack; /* the answer is in `buf` and unpacks there */
} lc_rma_out_t;

/* The FIFO of one target's requests in flight: out[head .. n) (room for
 * cap), busy_at its place in the window's busy list, -1: empty. */
typedef struct lc_rma_outq {
    lc_rma_out_t *out;
    int head, n, cap;
    int busy_at;
    /* The answers expected from the target, oldest first: ans[(ahead + i)
     * % acap] for i < an, the receive requests (also in out[]) of the
     * answers not arrived yet.  They are not posted in pt2pt matching: the
     * target answers in request order, so its next answer is the oldest's
     * (lc_rma_answer.c); room is reserved with the queue's. */
    lc_request_t **ans;
    int ahead, an, acap;
} lc_rma_outq_t;

typedef struct lc_rma_region {
    uintptr_t base;
    size_t size;
} lc_rma_region_t;

/* A rank's attached regions as origins read them (lc_rma_dyn.c), one
 * page of the dynamic window's shared segment, written only by that
 * rank.  gen is a sequence count: odd while the owner rewrites the
 * table; a reader's copy is good when it read the same even count
 * before and after.  full: more regions than slots (then origins send
 * every operation to the owner). */
#define LC_RMA_DYN_SLOTS 255
typedef struct lc_rma_dyn_tab {
    uint64_t gen;
    uint32_t n;
    uint32_t full;
    uint64_t r[LC_RMA_DYN_SLOTS][2]; /* address in the owner's space, bytes */
} lc_rma_dyn_tab_t;

struct lc_rma_win {
    lc_comm_t *comm;
    int flavor;
    bool direct;
    void *base; /* this rank's memory */
    size_t size;
    int disp_unit;
    size_t *sizes;   /* [comm->size] */
    int *disp_units; /* [comm->size] */
    char **bases;    /* direct: [comm->size] each rank's memory in our mapping */
    bool owns_base;  /* ALLOCATE on the AM path: malloc'd */
    /* AM windows with memory (not dynamic): where each rank's memory is in
     * its own address space, and whether CMA reaches it (the wire-up probe
     * read that peer): puts and gets then copy in one system call, without
     * the target's progress. */
    uint64_t *remote_bases; /* [comm->size], NULL: no CMA peer */
    uint8_t *cma;           /* [comm->size] */
    /* ... and which peers on other hosts libfabric RMA reaches (lc_rma_ofi.c):
     * puts and gets are fi_write / fi_read into the target's registered
     * window, served by its provider without its progress engine. */
    uint8_t *ofi;        /* [comm->size], NULL: none */
    uint64_t *ofi_addr;  /* [comm->size] address of each rank's first byte for its key */
    uint64_t *ofi_key;   /* [comm->size] */
    uint8_t *ofi_wrote;  /* [comm->size] written since the last flush (read fence needed) */
    void *ofi_mr;        /* our window's registration, NULL: none */
    lc_ofi_rma_track_t ofi_track;
    uint64_t ofi_ops;    /* puts and gets that took the path (LOCUS_SHOW_CHANNELS) */
    char ofi_scratch[8]; /* landing place of fence reads */

    /* direct windows: the segment */
    void *seg;
    size_t seg_len;
    lc_rma_line_t *lines; /* [comm->size] at the start of the segment */

    /* active messages */
    lc_list_t active_link; /* in the list the progress hook serves */
    lc_list_t inq;         /* lc_rma_in_t, arrival order */
    /* Requests that arrived and were not served in the packet handler
     * (an RTS, or anything behind one): in inq or still to be probed.
     * While > 0 the handler queues every request, so they all apply in
     * arrival order. */
    int am_queued;
    /* Requests in flight, one FIFO per target (lc_rma_outq.c): outq[t]
     * for target t, outq[comm->size] for the answers we send as a target.
     * busy[0 .. nbusy) lists the non-empty ones (a queue's busy_at is its
     * place there); ntracked counts every request in them. */
    lc_rma_outq_t *outq; /* [comm->size + 1] */
    int *busy;           /* [comm->size + 1] */
    int nbusy, ntracked;
    /* The first error of a request released by a progress pass (no flush
     * to return it to): the next flush reports it. */
    int pass_err;
    int sample_next;          /* > 0: the next answer posted is timed (lc_rma_pick.c) */
    /* Target side: the buffer a fetching request's result is made in,
     * taken before the request is applied (lc_rma_answer_prepare), so an
     * answer that finds the ring full needs no memory afterwards (it is
     * then sent from here, and the window takes a new one). */
    char *ans_buf;
    size_t ans_cap;
    /* Target side: the send request of the next answer that goes out as a
     * send of its own (ring full, or larger than one packet), taken with
     * the rest before the request is applied (lc_rma_answer_prepare) and
     * kept while answers fit the ring; NULL: none yet.  Before, it was
     * allocated after applying, and failing there ended the job. */
    lc_request_t *ans_req;
    int lock_shared;          /* target side: shared holders */
    int lock_excl;            /* target side: exclusive holder + 1, 0: none */
    /* Target side: what each rank holds of our lock, [comm->size]: 0
     * nothing, 1 shared, 2 exclusive.  An unlock from a rank holding
     * nothing changes nothing (before, it took a shared holder's count). */
    uint8_t *holds;
    lc_list_t waiters;        /* lc_rma_waiter_t */
    bool self_granted;        /* a queued lock of our own was granted */
    lc_rma_region_t *regions; /* dynamic: attached memory */
    int nregions, capregions;
    /* dynamic windows whose ranks all share memory: each rank's table of
     * regions in the segment (win->seg), [comm->size]; NULL: none, every
     * operation to another rank is an active message. */
    lc_rma_dyn_tab_t **dyn;
    /* Every rank reaches every other by CMA and the window has the lock
     * lines (win->lines): accumulates are applied by their origins under
     * the target's line, and every accumulate takes it (lc_rma_cmaacc.c). */
    bool cma_acc;

    /* origin epochs (for MPI_ERR_RMA_SYNC) */
    bool fence_open;
    int lock_all;
    uint8_t *locked;  /* [comm->size] 0, or MPI_LOCK_* - 233 */
    int nlocked;      /* targets locked with MPI_Win_lock (nonzero in locked[]) */
    int *start_ranks; /* PSCW access group, NULL: none */
    int nstart;
    int *post_ranks; /* PSCW exposure group, NULL: none */
    int npost;
};

/* Active-message path (lc_rma_am.c). */
int lc_rma_am_enable(lc_rma_win_t *win);
void lc_rma_am_disable(lc_rma_win_t *win);
/* `unpack` (may be NULL): `result` is a packed buffer the answer lands
 * in, owned by the engine from here on, unpacked as described. */
int lc_rma_am_send(lc_rma_win_t *win, const lc_rma_pkt_t *pkt, int target, const void *data, size_t data_bytes,
                   const void *data2, size_t data2_bytes, void *result, size_t result_bytes, lc_request_t *user,
                   const lc_rma_unpack_t *unpack);

/* The requests of ours in flight (lc_rma_outq.c).  Target -2: an answer
 * we send as a target.  Reserve room for k more of `target` before
 * posting anything: a push after that cannot fail (a posted request is
 * never left untracked).  The pass releases completed ones from the
 * queues' fronts; flush (target -1: all) waits for a target's requests
 * in O(its own) and returns the first error. */
int lc_rma_outq_init(lc_rma_win_t *win);
void lc_rma_outq_fini(lc_rma_win_t *win);
int lc_rma_outq_reserve(lc_rma_win_t *win, int target, int k);
lc_rma_out_t *lc_rma_outq_push(lc_rma_win_t *win, lc_request_t *req, void *buf, int target,
                               const lc_rma_unpack_t *unpack);
/* Take back the newest request of `target`, pushed for a request that
 * could not be sent (nothing released: the caller undoes the rest). */
void lc_rma_outq_unpush(lc_rma_win_t *win, int target);
void lc_rma_outq_pass(lc_rma_win_t *win);
int lc_rma_am_flush(lc_rma_win_t *win, int target);
/* The number of requests of ours in flight (answers we send included). */
int lc_rma_outq_tracked(const lc_rma_win_t *win);

/* Answers (lc_rma_answer.c).  Origin: the handlers of answers (tag RESP,
 * FAIL) on the window's communicator; an expected answer's receive (the
 * caller reserved room in the target's queue), registered before its
 * request is sent; undo of the newest one of `target` when its request
 * could not be sent; the answers still expected when the window goes
 * (none after a flush): completed with an error. */
int lc_rma_answer_enable(lc_rma_win_t *win);
void lc_rma_answer_disable(lc_rma_win_t *win);
int lc_rma_answer_expect(lc_rma_win_t *win, int target, void *result, size_t bytes, void (*hook)(lc_request_t *),
                         void *arg, lc_request_t **req_p);
void lc_rma_answer_unexpect(lc_rma_win_t *win, int target, lc_request_t *req);
void lc_rma_answer_drop_all(lc_rma_win_t *win);
/* Target: what an answer of `bytes` needs, taken before the request is
 * applied (queue room, a send request; for bytes > 0 the result buffer, *result_p):
 * MPI_ERR_NO_MEM when it cannot be had (then apply nothing and answer
 * with lc_rma_answer_fail).  lc_rma_answer_send sends an answer prepared
 * so, from `data` (the result buffer, window memory, or NULL for 0
 * bytes): now, or queued, allocating nothing.
 * lc_rma_answer_fail: a FAIL answer with `cls`, only when it goes out
 * now (MPI_SUCCESS; LC_AGAIN: serve the request again later). */
int lc_rma_answer_prepare(lc_rma_win_t *win, int source, size_t bytes, char **result_p);
void lc_rma_answer_send(lc_rma_win_t *win, int source, const void *data, size_t bytes);
int lc_rma_answer_fail(lc_rma_win_t *win, int source, int cls);
/* The completion hook of the answer's receive that completes `user`
 * (MPI_Rput ...) with the answer's error (lc_rma_user.c), for
 * lc_pt2pt_irecv_hooked: with `unpack`, the answer's buffer `result` is
 * unpacked as described first, and the hook owns `result` and a
 * reference on its type (the caller takes it for the hook).  MPI error
 * code; on failure nothing is owned.  lc_rma_user_unhook undoes a hook
 * that was never posted (frees what it owns but the type's reference). */
int lc_rma_user_hook(lc_request_t *user, void *result, const lc_rma_unpack_t *unpack,
                     void (**hook_p)(lc_request_t *), void **arg_p);
void lc_rma_user_unhook(void *arg, void (*hook)(lc_request_t *));
/* A contiguous PUT of `bytes` from `origin`: the request (header only),
 * then the data as a message of its own from the caller's buffer, which
 * the target's progress engine receives straight into window memory
 * through the channel's rendezvous (the shm pipeline: ring cells, several
 * in flight), instead of one message of header + data that both sides
 * copy once more.  Complete when the target's acknowledgement arrived. */
int lc_rma_am_put_stream(lc_rma_win_t *win, const lc_rma_pkt_t *pkt, int target, const void *origin, size_t bytes,
                         lc_request_t *user);
/* Target side, for our own lock requests on the AM path. */
bool lc_rma_am_try_lock(lc_rma_win_t *win, int source, int exclusive);
void lc_rma_am_unlock_local(lc_rma_win_t *win, int source);
/* Where `bytes` at `disp` are in our memory, or NULL (a bad request: the
 * origin checked the range, except for dynamic windows). */
char *lc_rma_am_addr(lc_rma_win_t *win, uint64_t disp, size_t bytes);

/* Active message or CMA for a contiguous put/get of `bytes` to a CMA
 * peer (lc_rma_pick.c): true for an active message.  *sample_p > 0 when
 * the operation is to be timed: a CMA call by the caller, an active
 * message by the engine (set win->sample_next before sending). */
#define LC_RMA_PICK_CLASSES 6
#define LC_RMA_PICK_MAX ((size_t)64 << 10)
int lc_rma_pick_class(size_t bytes);
bool lc_rma_pick_am(lc_rma_win_t *win, int target, size_t bytes, int *sample_p);
void lc_rma_pick_sample(lc_rma_win_t *win, int target, int sample, bool am, double seconds);

/* Derived target types (lc_rma_dtype.c).  Whether blocks relative to
 * `disp` all lie in our window memory (AM path: a peer's description is
 * never trusted), are positive multiples of `esz` (lc_rma_block_unit)
 * and total `bytes`. */
bool lc_rma_blocks_valid(lc_rma_win_t *win, uint64_t disp, const lc_rma_blk_t *blk, size_t n, size_t esz,
                         size_t bytes);
/* Apply an operation block by block: block i at base + off (base NULL:
 * lc_rma_am_addr(disp + off)), its data at the next bytes of the packed
 * `origin` / `result` (a padded pair's accumulate: all blocks gathered,
 * combined and scattered back, as its blocks may split elements).  The
 * caller holds whatever makes it atomic.  MPI_ERR_NO_MEM (nothing
 * applied) when a pair's gather buffer cannot be had. */
int lc_rma_apply_blocks(lc_rma_win_t *win, char *base, uint64_t disp, lc_rma_kind_t kind, MPI_Datatype dt, MPI_Op op,
                        const lc_rma_blk_t *blk, size_t n, const char *origin, char *result);

/* Packed elements (lc_rma_pairs.c).  Bytes of one element of the
 * predefined type dt in the datatype layer's packed form (MPI_Type_size:
 * a padded pair without its padding); 0 for an unknown type. */
size_t lc_rma_packed_size(MPI_Datatype dt);
/* What every block of a flattened target type of basic type dt is a
 * multiple of: the element, or 1 for a padded pair, whose blocks may
 * split it (MPI_SHORT_INT: the short, then the int). */
size_t lc_rma_block_unit(MPI_Datatype dt);
/* An accumulate (ACC or GACC) on `bytes` of packed elements of dt at
 * `at`, with the packed `origin` (unread for MPI_NO_OP) and `result`
 * (NULL: not wanted).  The caller holds whatever makes it atomic. */
void lc_rma_apply_packed(lc_rma_kind_t kind, MPI_Datatype dt, MPI_Op op, size_t bytes, char *at, const char *origin,
                         char *result);

/* Apply one operation to memory `at` (lc_rma_apply.c): the caller holds
 * whatever makes it atomic.  `result` may be NULL. */
void lc_rma_apply(lc_rma_kind_t kind, MPI_Datatype dt, MPI_Op op, size_t count, void *at, const void *origin,
                  const void *compare, void *result);

/* Dynamic windows' region tables (lc_rma_dyn.c).  Whether regions[0..n)
 * cover every byte of [disp, disp + bytes); setup (collective, at
 * creation: a table for every rank, or none when some rank is not a
 * shared-memory peer or LOCUS_RMA_DYN_DIRECT is 0 somewhere); publish
 * our regions after Win_attach / Win_detach; whether the bytes are in
 * `target`'s regions as its table says now (false also when the table
 * could not be read consistently: then ask the target). */
bool lc_rma_regions_cover(const lc_rma_region_t *regions, int n, uint64_t disp, size_t bytes);
int lc_rma_dyn_setup(lc_rma_win_t *win);
void lc_rma_dyn_publish(lc_rma_win_t *win);
bool lc_rma_dyn_reach(lc_rma_win_t *win, int target, uint64_t addr, size_t bytes);
/* The same, 1 / 0, or -1 when the table could not be read consistently. */
int lc_rma_dyn_check(lc_rma_win_t *win, int target, uint64_t addr, size_t bytes);

/* Accumulates by the origin over CMA (lc_rma_cmaacc.c).  setup
 * (collective, after the CMA table): win->cma_acc when every rank
 * reaches every other, the same on every rank.  lock / unlock: a rank's
 * accumulate line, held around every accumulate into its memory in such
 * a window.  try: false when the operation must go to the target (a
 * dynamic address its table does not show), else done, *rc_p its
 * error code. */
int lc_rma_cmaacc_setup(lc_rma_win_t *win);
void lc_rma_cmaacc_lock(lc_rma_win_t *win, int rank);
void lc_rma_cmaacc_unlock(lc_rma_win_t *win, int rank);
bool lc_rma_cmaacc_try(lc_rma_win_t *win, lc_rma_kind_t kind, int target, uint64_t off, MPI_Datatype dt, size_t count,
                       MPI_Op op, const void *origin, const void *compare, void *result, int *rc_p);

/* Direct-window segments (lc_rma_seg.c).  lc_rma_seg_map (collective):
 * a segment of the lock lines and then sizes[r] bytes per rank, where
 * each is in our mapping in bases[r]; lc_rma_seg_create: the direct
 * window's, with win->sizes into win->bases. */
int lc_rma_seg_map(lc_rma_win_t *win, const size_t *sizes, bool noncontig, char **bases);
int lc_rma_seg_create(lc_rma_win_t *win, bool noncontig);
void lc_rma_seg_destroy(lc_rma_win_t *win);

/* libfabric RMA (lc_rma_ofi.c).  Setup is collective (every rank of
 * the window calls it, whatever its channels). */
int lc_rma_ofi_setup(lc_rma_win_t *win);
void lc_rma_ofi_teardown(lc_rma_win_t *win);
/* Put (from `local`) or get (into `local`) `bytes` at byte offset `off` of
 * target's window, complete at the next flush.  MPI error code. */
int lc_rma_ofi_op(lc_rma_win_t *win, bool put, int target, uint64_t off, void *local, size_t bytes);
/* Wait until every operation of ours on the path is complete at its
 * target (target -1: all). */
int lc_rma_ofi_flush(lc_rma_win_t *win, int target);

/* Spin with progress (others' requests, our own answers). */
void lc_rma_idle(void);

/* The accumulate lock of one target's memory (direct path).  Acquire on
 * taking it pairs with the release on dropping it, so each accumulate
 * sees the previous one's stores: updates of one element never mix, for
 * any type and operation (MPI 4.1 §12.7.1: accumulates are atomic per
 * basic element). */
static inline void lc_rma_acc_lock(uint32_t *w)
{
    while (__atomic_exchange_n(w, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(w, __ATOMIC_RELAXED)) lc_rma_idle();
    }
}

static inline void lc_rma_acc_unlock(uint32_t *w)
{
    __atomic_store_n(w, 0, __ATOMIC_RELEASE);
}

#endif
