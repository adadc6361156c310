/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_sched.h — schedules: how a nonblocking or persistent collective runs.
 *
 * A schedule is a list of steps in rounds: sends and receives in the
 * communicator's collective context, local copies, local reductions and
 * calls.  A round's steps are started in the order they were added (a
 * local step runs when its turn comes, so a copy or reduction may precede
 * the sends of its round that read its result); the next round starts
 * when every send and receive of the round has completed.  Temporary
 * buffers belong to the schedule (lc_sched_alloc) and live as long as it.
 *
 * There is no thread: running schedules sit on one list, which the
 * progress engine walks on every pass (its progress hook), so any MPI call
 * that makes progress — Test, Wait*, Iprobe, a send — advances them.  A
 * schedule ends by completing its request (req->sched holds a reference).
 *
 * Matching.  All messages of a schedule carry one tag,
 * LC_SCHED_TAG | (the communicator's schedule sequence number): MPI
 * requires every rank to start the nonblocking collectives of a
 * communicator in the same order, so the n-th one has the same tag
 * everywhere, and two outstanding ones never take each other's messages
 * however their rounds interleave.  Inside one schedule, steps between a
 * pair of ranks are posted in the same order on both sides and channels
 * are FIFO, as for the blocking collectives (lc_coll_impl.h).  The tag
 * range is disjoint from the blocking collectives' (1..15) and from
 * LC_COLL_TAG_SUBSET's; it wraps after 2^28 schedules on one
 * communicator, far beyond what can be outstanding at once.  A persistent
 * collective takes its tag once, at init: its instances run one after
 * the other, so the FIFO argument keeps them apart.
 *
 * Derived datatypes: a schedule moves bytes.  The MPI layer's staging
 * (src/mpi/lc_mpi_stage.h) puts a pack step (a call step) before the
 * builder's steps and, after a fence, an unpack step after them, into and
 * out of a buffer of the schedule; what those steps hold (the datatype)
 * is released by an lc_sched_on_free hook when the schedule is freed.
 */
#ifndef LC_SCHED_H
#define LC_SCHED_H

#include "coll/lc_coll.h"
#include "pt2pt/lc_request.h"
#include "util/lc_list.h"

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#define LC_SCHED_TAG 0x20000000
#define LC_SCHED_TAG_MASK 0x0fffffff

typedef enum lc_sop_kind {
    LC_SOP_SEND = 1,
    LC_SOP_RECV,
    LC_SOP_COPY,   /* dst <- src, bytes */
    LC_SOP_REDUCE, /* dst <- src op dst, or dst op src (see lc_sched_reduce) */
    LC_SOP_CALL,   /* fn(arg): a local step of the caller's (MPI_Comm_idup) */
    LC_SOP_FENCE,  /* end of a round */
} lc_sop_kind_t;

typedef int lc_sched_call_fn(void *arg);

typedef struct lc_sop {
    uint8_t kind;
    uint8_t lower;   /* REDUCE: src holds lower ranks' operands */
    uint8_t strict;  /* REDUCE: keep operand order even for a commutative op */
    int peer;        /* SEND/RECV: rank of `comm` */
    lc_comm_t *comm; /* SEND/RECV: the schedule's, or the peer_comm set when added */
    const void *src;
    void *dst; /* RECV: buffer; REDUCE: accumulator */
    size_t bytes;
    size_t count; /* REDUCE: elements */
    MPI_Datatype dt;
    MPI_Op op;
    lc_sched_call_fn *fn;
    void *arg;
    lc_request_t *req; /* SEND/RECV in flight */
} lc_sop_t;

typedef void lc_sched_drop_fn(void *arg);

typedef struct lc_sched_hook {
    struct lc_sched_hook *next;
    lc_sched_drop_fn *fn;
    void *arg;
} lc_sched_hook_t;

typedef struct lc_sched {
    lc_list_t link; /* on the running list while it runs (listed) */
    lc_comm_t *comm;
    /* While set, SEND/RECV steps being added name ranks of this
     * communicator instead of `comm`: an intercommunicator's schedule
     * (lc_mpi_inter_coll.c) adds the steps of its local group so, over
     * its hidden local intracommunicator (c->local).  That communicator
     * belongs to the intercommunicator alone, so the schedule's tag (from
     * the intercommunicator's sequence) is unique on it too. */
    lc_comm_t *peer_comm;
    int tag;
    int refs; /* requests holding it (persistent: the request + its instance) */
    int nops, nbufs;
    /* running state, reset by each start */
    int pos;           /* next step to start */
    int round_begin;   /* first step of the current round */
    int pending;       /* sends/receives of the round not complete */
    int err;           /* first error (MPI code) */
    bool listed;       /* on the running list (not when the start call finished it) */
    lc_request_t *req; /* the request completed at the end */
    lc_sched_hook_t *hooks; /* run by lc_sched_free, before the buffers go */
    bool memo_ok;           /* an MPI_I<coll> capture: its schedule may be memoized */
    struct lc_sched *use;   /* set by a memo hit: lc_icoll_end runs this one instead */
    /* An MPI_I<coll> capture: the call's arguments as the application
     * passed them (the caller's, alive during the call only), recorded
     * with the memoized schedule for the quick restart. */
    const struct lc_sched_args *args;
    /* Everything from here on survives the schedule cache (lc_sched_new
     * clears only the fields above): the arrays and the spare scratch. */
    lc_sop_t *ops;
    int cap;
    /* buffers owned by the schedule: bufs[i] of buf_bytes[i] bytes */
    void **bufs;
    size_t *buf_bytes;
    int bufcap;
    void *spare;            /* a cached schedule's kept scratch (lc_sched_free) */
    size_t spare_bytes;
} lc_sched_t;

/* An empty schedule for `comm`; it gets its tag (the next of the
 * communicator's sequence) from lc_sched_take_tag once it is complete. */
lc_sched_t *lc_sched_new(lc_comm_t *comm);
void lc_sched_take_tag(lc_sched_t *s);
void lc_sched_free(lc_sched_t *s);
/* Scratch memory of the schedule; NULL (rc set) when out of memory. */
void *lc_sched_alloc(lc_sched_t *s, size_t bytes, int *rc);

/* Call fn(arg) when the schedule is freed (before its buffers are: arg
 * may live in one), to release what its steps hold. */
int lc_sched_on_free(lc_sched_t *s, lc_sched_drop_fn *fn, void *arg);

/* Steps (return MPI codes: only running out of memory fails). */
int lc_sched_send(lc_sched_t *s, const void *buf, size_t bytes, int peer);
int lc_sched_recv(lc_sched_t *s, void *buf, size_t bytes, int peer);
int lc_sched_copy(lc_sched_t *s, void *dst, const void *src, size_t bytes);
/* dst = src op dst when `lower` (src holds the lower ranks' operands) or
 * the operation is commutative and not `strict`; otherwise dst = dst op
 * src, computed into src (which must be scratch) and copied to dst. */
int lc_sched_reduce(lc_sched_t *s, void *src, void *dst, size_t count, MPI_Datatype dt, MPI_Op op, bool lower,
                    bool strict);
/* A call step may add steps to its own schedule (they run after it, in
 * its round until the next fence): MPI_Comm_idup retries so. */
int lc_sched_call(lc_sched_t *s, lc_sched_call_fn *fn, void *arg);
/* End the current round. */
int lc_sched_fence(lc_sched_t *s);

/* The request for a complete schedule: LC_REQ_COLL (an MPI_I<coll>, to
 * be started with lc_sched_start) or LC_REQ_PCOLL (persistent).  Takes
 * the schedule's tag and the request's reference.  Out of requests: the
 * schedule is freed unless the memo holds it (a memo hit, or a schedule
 * just kept) — a schedule goes only with its last reference. */
int lc_sched_launch(lc_sched_t *s, lc_req_kind_t kind, lc_request_t **req_p);

/* Run the schedule to complete `req` (an instance: LC_REQ_COLL).  The
 * first round starts now; a schedule with nothing to do completes req at
 * once. */
void lc_sched_start(lc_sched_t *s, lc_request_t *req);

/* MPI_Start of a persistent collective (LC_REQ_PCOLL, inactive): a new
 * instance (LC_REQ_COLL, holding the schedule and the communicator)
 * becomes preq->active and runs the schedule built at init. */
int lc_sched_start_instance(lc_request_t *preq);

/* The memo (lc_sched_memo.c): a communicator keeps the last few
 * schedules of MPI_Ibarrier / Ibcast / Ireduce / Iallreduce built for it,
 * keyed by every argument the builder read (buffers included) and by the
 * selection table's rule, so a loop repeating one call builds its
 * schedule once, as a persistent collective does.  Only calls whose
 * schedule depends on nothing but the key qualify: predefined datatype
 * and operation (a freed handle could name another object later), no
 * staging steps, an intracommunicator. */
typedef struct lc_sched_key {
    const void *rule; /* the table's choice (a forced algorithm changes it) */
    const void *sbuf;
    const void *rbuf;
    size_t count; /* elements (bcast: bytes) */
    MPI_Datatype dt;
    MPI_Op op;
    int root;
    int coll; /* lc_coll_id_t */
} lc_sched_key_t;

/* The quick restart (src/mpi/lc_mpi_icoll.c): the arguments of an
 * MPI_Ibarrier / Ibcast / Ireduce / Iallreduce call, as the application
 * passed them.  A memoized schedule records the call that last built or
 * hit it, only when that call's datatype is builtin (or none) and its
 * operation predefined (or none): handles that never name another
 * object.  Matching such a record proves that the same arguments have
 * already passed every check of the call on this communicator and chose
 * this schedule. */
typedef struct lc_sched_args {
    const void *sbuf;
    const void *rbuf;
    MPI_Count count;
    MPI_Datatype dt;
    MPI_Op op;
    int root;
    int call; /* which MPI_I<coll> (the MPI layer's numbering, never 0) */
} lc_sched_args_t;

/* An idle memoized schedule of `comm` whose recorded call is `args`, or
 * NULL. */
lc_sched_t *lc_sched_memo_quick(lc_comm_t *comm, const lc_sched_args_t *args);

/* Under capture, before the builder runs: true when `s` (the capturing
 * schedule, still empty) may be memoized for `key` (predefined types,
 * no staging); then, when an idle schedule with this key is memoized on
 * s->comm, s->use names it and nothing need be built. */
bool lc_sched_memo_find(lc_sched_t *s, const lc_sched_key_t *key, bool *hit);
/* After a successful build of a memo-able schedule: keep it on the
 * communicator (the memo holds a reference), evicting an idle one. */
void lc_sched_memo_keep(lc_sched_t *s, const lc_sched_key_t *key);
/* The communicator goes: drop its memo's references. */
void lc_sched_memo_drop(lc_comm_t *comm);

/* Set while the MPI layer turns a collective into a schedule: the entry
 * points of lc_coll.h (lc_coll_select.c) then build the chosen
 * algorithm's schedule into it instead of running the algorithm. */
extern lc_sched_t *lc_coll_capture;

/* Register the hooks with the request pool (MPI_Init). */
void lc_sched_init(void);

#endif
