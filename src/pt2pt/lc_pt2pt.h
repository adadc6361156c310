/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_pt2pt.h — the point-to-point engine: matching, protocols, progress.
 *
 * Protocols (all sizes in bytes; a message is contiguous bytes: the
 * typed forms below pack and unpack derived datatypes):
 *  - eager (size <= peer->eager_limit): one EAGER packet carries the
 *    message; the send completes as soon as it is in the ring.  MPI_Ssend
 *    sets LC_PKT_FLAG_SYNC and completes on the receiver's ACK.
 *  - rendezvous: an RTS names the sender's buffer.  When the receive is
 *    matched, the receiver either pulls the data in one copy (CMA, or
 *    memcpy for self) and answers FIN, or answers CTS and the sender
 *    pipelines DATA packets through the ring (two copies).
 * Matching follows MPI: per (context, source) packets are matched in
 * arrival order, which is send order since each channel is FIFO.
 *
 * Functions return MPI error codes.  `ctx_kind` selects the user
 * (LC_CTX_PT2PT) or collective (LC_CTX_COLL) context of the communicator.
 */
#ifndef LC_PT2PT_H
#define LC_PT2PT_H

#include "pt2pt/lc_comm.h"
#include "pt2pt/lc_request.h"
#include "coord/lc_world.h"
#include "util/lc_thread.h"

/* Register the packet handler with the channels. */
void lc_pt2pt_init(void);

/* What the receive side counts, for MPI_T's performance variables
 * (src/mpi/lc_mpit_pvar.c).  Bumped only off the eager path: where a
 * rendezvous is delivered and where a message joins or leaves the
 * unexpected queue (which allocates anyway).  Updated with lc_count_add
 * (lc_thread.h): the queues of different communicators are updated under
 * their own locks at MULTIPLE, so the counters are atomic there. */
typedef struct lc_pt2pt_stats {
    unsigned long rndv_pull;       /* rendezvous messages received by a single-copy pull (CMA, fi_read) */
    unsigned long rndv_pipe;       /* ... through the two-copy pipeline (or streamed packets) */
    unsigned long rndv_pull_bytes; /* their bytes */
    unsigned long rndv_pipe_bytes;
    unsigned long rndv_split;        /* pulls split with the sender (lc_pt2pt_split.c), also in rndv_pull */
    unsigned long rndv_split_pushed; /* bytes of those that the sender pushed (or was left to push) */
    unsigned long rndv_split_sent;   /* rendezvous sends whose receiver asked to split them (CTS | SPLIT) */
    unsigned long unexp_msgs; /* messages that arrived before their receive */
    unsigned long unexp_len;  /* messages in the unexpected queue now */
    unsigned long unexp_peak; /* the most since the MPI_T layer last set it (to unexp_len) */
} lc_pt2pt_stats_t;
extern lc_pt2pt_stats_t lc_pt2pt_stats;

/* Free unexpected messages left at MPI_Finalize (and count them). */
int lc_pt2pt_fini(void);

int lc_pt2pt_isend(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                   lc_send_mode_t mode, lc_request_t **req_p);
/* lc_pt2pt_isend in two halves, so that a caller can finish the request
 * before anything goes out (lc_pt2pt_typed.c: its cursor; buffered sends,
 * src/mpi/lc_mpi_bsend.c: their completion hook): a send request filled in
 * (NULL: out of memory), and its start (the first packet now or queued;
 * MPI_PROC_NULL completes it). */
lc_request_t *lc_pt2pt_send_request(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                                    lc_send_mode_t mode);
void lc_pt2pt_send_start(lc_request_t *req);
/* Blocking send; small standard sends take an allocation-free path.
 * Through a pointer set once (the unlocked instance below
 * MPI_THREAD_MULTIPLE, the one with the peer's tx lock at it:
 * lc_pt2pt_threads_multiple). */
extern LC_HIDDEN int (*lc_pt2pt_send_p)(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                                        lc_send_mode_t mode);
static inline int lc_pt2pt_send(const void *buf, size_t bytes, int dest, int tag, lc_comm_t *comm, int ctx_kind,
                                lc_send_mode_t mode)
{
    return lc_pt2pt_send_p(buf, bytes, dest, tag, comm, ctx_kind, mode);
}
/* MPI_THREAD_MULTIPLE granted (by MPI_Init_thread, MPI_Session_init or
 * the asynchronous progress thread), before a second thread is in MPI:
 * the pt2pt engine's hot functions switch, once, to their locked
 * instances (the request pool, matching, the blocking send, the packet
 * handler).  Idempotent. */
void lc_pt2pt_threads_multiple(void);
int lc_pt2pt_irecv(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind,
                   lc_request_t **req_p);
/* The same with a completion hook (lc_request_t.on_complete, its argument
 * in `ext`) set before the receive is posted: at MPI_THREAD_MULTIPLE a
 * thread outside the section may complete it the moment it is posted. */
int lc_pt2pt_irecv_hooked(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind,
                          void (*hook)(lc_request_t *), void *arg, lc_request_t **req_p);
/* lc_pt2pt_irecv_hooked in two halves, as the send's: a receive request
 * filled in (NULL: out of memory), which no message matches until
 * lc_pt2pt_recv_start posts it.  The one-sided engine matches its
 * answers itself, per target (src/rma/lc_rma_answer.c), and posts one
 * only when its answer arrives as a rendezvous. */
lc_request_t *lc_pt2pt_recv_request(void *buf, size_t bytes, void (*hook)(lc_request_t *), void *arg);
void lc_pt2pt_recv_start(lc_request_t *req, int source, int tag, lc_comm_t *comm, int ctx_kind);
/* The same for a request the user holds (MPI_Irecv): it holds its
 * communicator (lc_request_hold_comm) from the start.  Through a pointer
 * set once, as lc_pt2pt_send: the reference is counted atomically only
 * at MPI_THREAD_MULTIPLE, with no test of the level. */
extern LC_HIDDEN int (*lc_pt2pt_irecv_user_p)(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm,
                                              lc_request_t **req_p);
/* Blocking receive; status may be MPI_STATUS_IGNORE. Returns the status
 * error (MPI_ERR_TRUNCATE) if any.  Its request lives on the call's
 * stack (lc_request_is_local).  Through a pointer set once, as
 * lc_pt2pt_send (lc_pt2pt_threads_multiple). */
extern LC_HIDDEN int (*lc_pt2pt_recv_p)(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind,
                                        MPI_Status *status);
static inline int lc_pt2pt_recv(void *buf, size_t bytes, int source, int tag, lc_comm_t *comm, int ctx_kind,
                                MPI_Status *status)
{
    return lc_pt2pt_recv_p(buf, bytes, source, tag, comm, ctx_kind, status);
}

/* ---- typed forms (lc_pt2pt_typed.c) --------------------------------------------
 * count items of a committed datatype t (retained while pending).  A
 * dense type takes the byte path at buf + true_lb; any other travels
 * packed through a buffer the request owns: packed when the send starts,
 * unpacked when the receive completes (only the bytes that arrived: a
 * partial last item is filled as far as it came).  The message is the
 * packed bytes (count * t->size), so any type with the same type
 * signature matches it. */
struct lc_dt;
int lc_pt2pt_isend_dt(const void *buf, MPI_Count count, struct lc_dt *t, int dest, int tag, lc_comm_t *comm,
                      int ctx_kind, lc_send_mode_t mode, lc_request_t **req_p);
int lc_pt2pt_send_dt(const void *buf, MPI_Count count, struct lc_dt *t, int dest, int tag, lc_comm_t *comm,
                     int ctx_kind, lc_send_mode_t mode);
int lc_pt2pt_irecv_dt(void *buf, MPI_Count count, struct lc_dt *t, int source, int tag, lc_comm_t *comm, int ctx_kind,
                      lc_request_t **req_p);
int lc_pt2pt_recv_dt(void *buf, MPI_Count count, struct lc_dt *t, int source, int tag, lc_comm_t *comm, int ctx_kind,
                     MPI_Status *status);
/* Receive into the packed bytes [off, off + n) of count items of t at buf
 * (off + n <= count * t->size): a partition of a partitioned receive. */
int lc_pt2pt_irecv_dt_range(void *buf, MPI_Count count, struct lc_dt *t, size_t off, size_t n, int source, int tag,
                            lc_comm_t *comm, int ctx_kind, lc_request_t **req_p);
int lc_pt2pt_imrecv_dt(void *buf, MPI_Count count, struct lc_dt *t, lc_request_t *msg, lc_request_t **req_p);
/* Request hooks: completion unpacks a staged receive and frees the
 * stage; release also drops the type. */
void lc_pt2pt_typed_done(lc_request_t *req);
void lc_pt2pt_typed_drop(lc_request_t *req);
/* MPI_Finalize: free the cached send stage. */
void lc_pt2pt_typed_fini(void);

/* ---- partitioned communication (lc_pt2pt_part.c) -------------------------------
 * MPI_Psend_init/MPI_Precv_init: `parts` partitions of `count` items each,
 * `pbytes` packed bytes and `pstride` bytes apart in buf; udt the derived
 * type (retained) or NULL for a predefined one (then pstride == pbytes).
 * rank may be MPI_PROC_NULL.  The request (LC_REQ_PART_SEND/RECV) is
 * started with lc_part_start, which makes `active`, an LC_REQ_PART_ROUND
 * that completes when the round's data is out (every partition readied
 * and sent) or in.  MPI error codes. */
int lc_part_init(bool send, void *buf, int parts, MPI_Count count, struct lc_dt *udt, size_t pbytes, size_t pstride,
                 int rank, int tag, lc_comm_t *comm, lc_request_t **req_p);
int lc_part_start(lc_request_t *preq);
/* Mark partitions lo..hi (or list[0..n)) of an active send ready: each is
 * sent at once. */
int lc_part_pready(lc_request_t *preq, int lo, int hi);
int lc_part_pready_list(lc_request_t *preq, int n, const int *list);
/* Has receive partition `partition` of an active receive arrived (true
 * when inactive)?  Makes progress. */
int lc_part_arrived(lc_request_t *preq, int partition, int *flag);
/* MPI_Request_free: MPI_ERR_REQUEST (nothing freed) while a round is in
 * flight; else frees the request, its round instance if not yet
 * completed by the user, and the state. */
int lc_part_free(lc_request_t *preq);

/* Look for a matching unexpected message.  With `msg_p` set, a match is
 * dequeued into a LC_REQ_MESSAGE request (Mprobe); MPI_ERR_NO_MEM (flag
 * 0, the message left queued) when that request cannot be had. */
int lc_pt2pt_iprobe(int source, int tag, lc_comm_t *comm, int *flag, MPI_Status *status, lc_request_t **msg_p);
/* The same among the messages already arrived, without a progress pass
 * (for work done inside one: lc_progress_hook). */
int lc_pt2pt_iprobe_arrived(int source, int tag, lc_comm_t *comm, int *flag, MPI_Status *status, lc_request_t **msg_p);
/* Receive a message dequeued by Mprobe; `msg` is consumed. */
int lc_pt2pt_imrecv(void *buf, size_t bytes, lc_request_t *msg, lc_request_t **req_p);
/* Receive the message Mprobe dequeued (`msg`, consumed) into req, a
 * receive request taken beforehand (lc_pt2pt_recv_request): cannot fail. */
void lc_pt2pt_imrecv_post(lc_request_t *req, lc_request_t *msg);

/* ---- active messages (lc_pt2pt_am.c) ------------------------------------------
 * Packets on `comm`'s context `ctx_kind` with tag `tag` go to fn as they
 * arrive (inside a progress pass, before matching): `eager` with the
 * whole message (payload, len bytes: valid during the call only), else
 * an RTS (the message stays with its sender).  fn returns true when it
 * consumed the packet; false lets it be matched or queued as a message,
 * in arrival order as always.  fn may send (lc_pt2pt_try_send,
 * lc_pt2pt_isend) but must not make progress. */
typedef bool lc_pt2pt_am_fn_t(void *arg, int src, bool eager, const void *payload, size_t len);
int lc_pt2pt_am_register(lc_comm_t *comm, int ctx_kind, int tag, lc_pt2pt_am_fn_t *fn, void *arg);
void lc_pt2pt_am_unregister(lc_comm_t *comm, int ctx_kind, int tag);
/* A standard send of (pre, prelen) + (buf, bytes) as one eager packet,
 * only when it goes out now: no allocation, no request; MPI_SUCCESS, or
 * LC_AGAIN (too large for one packet, ring full, or earlier sends to
 * `dest` still queued: then nothing was sent). */
int lc_pt2pt_try_send(const void *pre, size_t prelen, const void *buf, size_t bytes, int dest, int tag,
                      lc_comm_t *comm, int ctx_kind);

/* Cancel a posted receive that has not matched yet; others complete normally. */
void lc_pt2pt_cancel(lc_request_t *req);

/* Start a new instance of a persistent request. */
int lc_pt2pt_start(lc_request_t *preq);

/* One pass over the channels and pending sends: number of events. */
int lc_progress(void);
/* Passes made so far by any thread (wraps; lc_count_add, lc_thread.h):
 * the asynchronous progress thread keeps out while application calls
 * make passes themselves (lc_async.c). */
extern unsigned lc_progress_passes;
/* Of those, the passes of polling calls (lc_progress_test: MPI_Test and
 * its kin), counted only while the asynchronous progress thread runs,
 * inside the section: the thread leaves progress to an application that
 * polls (lc_async.c). */
extern unsigned lc_progress_tests;
/* Work upper layers do on every progress pass while they have any: the
 * schedules of nonblocking and persistent collectives (src/coll/lc_sched.c)
 * and the one-sided requests addressed to this process (src/rma).  Each
 * sets its slot with lc_progress_hook_set while it has work and clears it
 * (NULL) when it has none, so an idle pass pays one load.  A hook returns
 * its number of events; it may call lc_progress itself and must then
 * ignore the nested call. */
typedef int lc_progress_hook_fn_t(void);
typedef enum {
    LC_PROGRESS_HOOK_SCHED,
    LC_PROGRESS_HOOK_RMA,
    LC_PROGRESS_HOOK_PART, /* partitioned rounds in flight (lc_pt2pt_part.c) */
    LC_PROGRESS_HOOK_N
} lc_progress_hook_slot_t;
void lc_progress_hook_set(lc_progress_hook_slot_t slot, lc_progress_hook_fn_t *fn);
/* Work is in flight that a progress pass may advance: incomplete
 * requests, sends queued for ring space, or a hook set. */
int lc_progress_pending(void);
/* Called between fruitless progress passes: yields the CPU when ranks
 * outnumber cores (or LOCUS_POLL=yield). */
void lc_progress_idle(void);
/* The same for a wait that may park at MULTIPLE (pt2pt/lc_park.h): its
 * loop ends with lc_park_wait_end.  _for: the wait needs `key` (a
 * request) to complete next, and a parked thread is woken by that
 * completion only; without: by any completion or queued message. */
void lc_progress_idle_wait(void);
void lc_progress_idle_wait_for(const void *key);
/* A call that returns whether or not it found anything (MPI_Test and its
 * kin, Iprobe, Parrived) and found nothing: yields the CPU when waits
 * yield (ranks outnumber cores, or LOCUS_POLL=yield/sleep). */
void lc_progress_poll_idle(void);
/* Such a call's pass: lc_progress, then lc_progress_poll_idle if it found
 * nothing. */
int lc_progress_test(void);
/* Drive progress until the request completes (does not release it). */
void lc_pt2pt_wait(lc_request_t *req);
/* Wait, copy the status out, release: for internal (collective) requests. */
int lc_pt2pt_wait_release(lc_request_t *req, MPI_Status *status);
int lc_pt2pt_waitall_release(int n, lc_request_t **reqs);

#endif
